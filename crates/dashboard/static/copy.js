// The copy button beside a key shown once: copies the key's text to the clipboard. Everything works
// without it; it only shows the button when the clipboard can be written.
"use strict";
for (const button of document.querySelectorAll("button[data-copy]")) {
  const source = document.getElementById(button.dataset.copy);
  if (!source || !navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(source.textContent.trim());
      button.textContent = "Copied";
    } catch {
      button.textContent = "Copy it by hand";
    }
  });
}
