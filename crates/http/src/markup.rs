//! Text made safe to print inside the markup the service writes: its HTML pages (`/docs`,
//! `/changelog`) and its RSS feed. One escaping serves both: XML's five entities, which HTML reads
//! alike, and no control character XML 1.0 forbids.

/// Escapes `text` for element content and attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters other than tab and line breaks are not allowed in XML 1.0.
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_special_characters_are_escaped() {
        let cases = [
            ("Odile's \"Ale\" & <Stout>", "Odile&apos;s &quot;Ale&quot; &amp; &lt;Stout&gt;"),
            ("plain", "plain"),
            ("bell\u{7}", "bell"),
            ("Émile エミール", "Émile エミール"),
        ];
        for (text, expected) in cases {
            assert_eq!(escape(text), expected, "{text}");
        }
    }
}
