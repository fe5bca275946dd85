// The reference page's "try it" forms (/docs): with a signed-in session and a usable key, each /v1
// route's form sends its request through /account/try, answered as the key chosen, and shows the
// answer. Without them the forms stay hidden and the page says how to get there.
"use strict";
(function () {
  const forms = document.querySelectorAll("form.try");
  if (forms.length === 0) return;

  // The request a form describes: its path with the path parameters filled in, and the query
  // parameters that are set.
  function target(form) {
    let path = form.dataset.path;
    const query = new URLSearchParams();
    for (const input of form.querySelectorAll("[data-in]")) {
      const value = input.value.trim();
      if (input.dataset.in === "path") {
        path = path.replace("{" + input.name + "}", encodeURIComponent(value));
      } else if (value !== "") {
        query.append(input.name, value);
      }
    }
    const asked = query.toString();
    return asked === "" ? path : path + "?" + asked;
  }

  // An answer taller than its box scrolls within it: only then is it a region the keyboard must
  // reach to scroll, and so a tab stop; a short one is not (the page would gain a stop per form).
  function show(output, lines) {
    output.textContent = lines.join("\n");
    if (output.scrollHeight > output.clientHeight) {
      output.tabIndex = 0;
    } else {
      output.removeAttribute("tabindex");
    }
  }

  async function send(form, csrf) {
    const output = form.querySelector("output");
    const asked = target(form);
    const key = form.querySelector("select.api-key").value;
    show(output, ["GET " + asked, "…"]);
    const body = new URLSearchParams({ csrf: csrf, key: key, target: asked });
    let answer;
    try {
      const response = await fetch("/account/try", { method: "POST", credentials: "same-origin", body: body });
      const text = await response.text();
      try {
        answer = JSON.parse(text);
      } catch (_) {
        show(output, ["GET " + asked, response.status + ": your session may have ended; reload the page and sign in."]);
        return;
      }
    } catch (error) {
      show(output, ["GET " + asked, String(error)]);
      return;
    }
    if (answer.error) {
      show(output, ["GET " + asked, answer.error]);
      return;
    }
    let shown = answer.body;
    try {
      shown = JSON.stringify(JSON.parse(answer.body), null, 2);
    } catch (_) {
      // Not JSON: shown as it came.
    }
    const status = answer.status + (answer.rate_limit ? "    RateLimit: " + answer.rate_limit : "");
    show(output, ["GET " + asked, status, "", shown]);
  }

  fetch("/account/keys.json", { credentials: "same-origin" })
    .then((response) => response.json())
    .then((state) => {
      const usable = state.signed_in && state.keys.length > 0;
      for (const note of document.querySelectorAll(".try-note")) {
        note.hidden = usable;
      }
      if (!usable) return;
      for (const form of forms) {
        const select = form.querySelector("select.api-key");
        for (const key of state.keys) {
          const option = document.createElement("option");
          option.value = String(key.id);
          option.textContent = key.name + " (" + key.prefix + ")";
          select.append(option);
        }
        form.hidden = false;
        form.addEventListener("submit", (event) => {
          event.preventDefault();
          send(form, state.csrf);
        });
      }
    })
    .catch(() => {});
})();
