//! The look every page of the site shares, the dashboard's and the API's own (`/docs`,
//! `/changelog`): one layout (`templates/layout.html`), its header ([`Nav`]), and one style sheet
//! ([`STYLE`], served at `/static/style.css`).
//!
//! askama looks for a template in its crate's `templates/`, or beside the template that names it:
//! the pages of the other crates name the layout by its path from theirs
//! (`{% extends "../../site/templates/layout.html" %}`, without askama's `config` feature and its TOML
//! parser), and depend on this crate for what the layout prints.
//!
//! The header says who is signed in, so it differs per visitor, where the API's pages are the same for
//! everyone and large. Such a page is rendered once with a [`HeaderSlot`] in its header's place,
//! [`Framed::split`] there, and each answer puts the visitor's header in between.
//!
//! Who the visitor is, and what the answer sets in their browser, is for the crates that serve the
//! pages to know: this one is handed a [`Nav`] and knows no session, cookie or request.

use std::fmt;

use askama::Template;

/// The site's one style sheet, served at `/static/style.css`.
pub const STYLE: &str = include_str!("../static/style.css");

/// The header of a page: the site's links, the page's own marked as current, and what a visitor who
/// is signed in can open, or the way to sign in. The layout prints it as its `nav`.
#[derive(Debug, Clone, Template)]
#[template(path = "header.html")]
pub struct Nav {
    /// The path of the page, whose link is marked as the current page.
    pub current: String,
    pub signed_in: bool,
    /// The browser's form token, which the sign-out button sends (and the page's own forms).
    pub csrf: String,
}

impl Nav {
    /// The header of a visitor who is not signed in, on the page at `current`.
    pub fn signed_out(current: &str) -> Self {
        Self { current: current.to_owned(), signed_in: false, csrf: String::new() }
    }

    fn is_current(&self, path: &str) -> bool {
        self.current == path
    }
}

/// What a page rendered for every visitor prints in its header's place: a mark that
/// [`Framed::split`] finds. Every other text a template prints is escaped, so its `<` cannot start
/// the mark, and the layout prints the header before the page's own content.
#[derive(Debug, Clone, Copy)]
pub struct HeaderSlot;

const SLOT: &str = "<!--tapster:header-->";

impl fmt::Display for HeaderSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(SLOT)
    }
}

/// A page rendered once for every visitor: what comes before its header and what comes after.
#[derive(Debug)]
pub struct Framed {
    before: Box<str>,
    after: Box<str>,
}

impl Framed {
    /// `html`, a page rendered with a [`HeaderSlot`] as its `nav`, cut at the slot; `None` unless it
    /// has exactly one. A second mark is not the header's place: text a template printed unescaped
    /// (`|safe`) that holds the mark, or the slot printed twice; the page would show it, or a second
    /// header, to no one's benefit.
    pub fn split(html: &str) -> Option<Self> {
        let (before, after) = html.split_once(SLOT)?;
        if after.contains(SLOT) {
            return None;
        }
        Some(Self { before: before.into(), after: after.into() })
    }

    /// The whole page with `header` (a rendered [`Nav`]) in its place.
    pub fn with_header(&self, header: &str) -> String {
        let mut page = String::with_capacity(self.before.len() + header.len() + self.after.len());
        page.push_str(&self.before);
        page.push_str(header);
        page.push_str(&self.after);
        page
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page over the layout, as the crates that use it write theirs.
    #[derive(Template)]
    #[template(
        source = "{% extends \"layout.html\" %}{% block title %}A page{% endblock %}{% block main %}<h1>{{ heading }}</h1>{% endblock %}",
        ext = "html"
    )]
    struct Page<N: fmt::Display> {
        nav: N,
        heading: &'static str,
    }

    fn signed_in(current: &str) -> Nav {
        Nav { current: current.to_owned(), signed_in: true, csrf: "t<k>".to_owned() }
    }

    #[test]
    fn the_header_says_who_is_signed_in() {
        let out = Nav::signed_out("/docs").render().unwrap();
        assert!(out.contains(r#"<a href="/signin">Sign in</a>"#), "{out}");
        assert!(!out.contains("Your keys") && !out.contains("<form"), "{out}");

        let within = signed_in("/account").render().unwrap();
        assert!(within.contains(r#"<a href="/account" aria-current="page">Your keys</a>"#), "{within}");
        assert!(within.contains(r#"<a href="/account/webhooks">Webhooks</a>"#), "{within}");
        assert!(within.contains(r#"<input type="hidden" name="csrf" value="t&#60;k&#62;">"#), "{within}");
        assert!(within.contains(">Sign out</button>") && !within.contains("Sign in"), "{within}");
    }

    #[test]
    fn only_the_current_page_is_marked() {
        let out = Nav::signed_out("/changelog").render().unwrap();
        assert_eq!(out.matches("aria-current").count(), 1, "{out}");
        assert!(out.contains(r#"<a href="/changelog" aria-current="page">Changelog</a>"#), "{out}");
        let elsewhere = Nav::signed_out("/nothing").render().unwrap();
        assert!(!elsewhere.contains("aria-current"), "{elsewhere}");
    }

    #[test]
    fn a_page_has_a_title_a_language_and_its_landmarks() {
        let out = Page { nav: Nav::signed_out("/"), heading: "Hello" }.render().unwrap();
        assert!(out.contains(r#"<html lang="en">"#), "{out}");
        assert!(out.contains("<title>A page · Tapster</title>"), "{out}");
        assert!(out.contains(r#"<link rel="stylesheet" href="/static/style.css">"#), "{out}");
        let order = [
            r##"<a class="skip" href="#main">"##,
            "<header",
            "<nav",
            "<main id=\"main\">",
            "<h1>Hello</h1>",
            "</main>",
            "<footer",
        ]
        .map(|tag| out.find(tag).unwrap_or_else(|| panic!("no {tag} in {out}")));
        assert!(order.is_sorted(), "{order:?} in {out}");
    }

    /// A page rendered once and given each visitor's header is the page rendered with that header.
    #[test]
    fn a_framed_page_with_a_header_is_the_page_rendered_with_it() {
        let once = Page { nav: HeaderSlot, heading: "<!--tapster:header-->" }.render().unwrap();
        let framed = Framed::split(&once).unwrap();
        for nav in [Nav::signed_out("/docs"), signed_in("/docs")] {
            let whole = Page { nav: nav.clone(), heading: "<!--tapster:header-->" }.render().unwrap();
            assert_eq!(framed.with_header(&nav.render().unwrap()), whole);
        }
        assert!(Framed::split("<p>no slot</p>").is_none());
    }

    /// The way past the header is the first thing the keyboard reaches: before the header's links.
    #[test]
    fn the_first_link_of_a_page_skips_to_its_content() {
        let out = Page { nav: Nav::signed_out("/"), heading: "Hello" }.render().unwrap();
        let first = out.find("<a ").unwrap();
        let skip = r##"<a class="skip" href="#main">Skip to content</a>"##;
        assert!(out[first..].starts_with(skip), "{out}");
        assert_eq!(out.matches(r#"id="main""#).count(), 1, "{out}");
    }

    /// A page with its slot twice, or none, has no one place for the header.
    #[test]
    fn a_page_is_framed_only_at_its_one_slot() {
        for html in ["<p>no slot</p>", "<!--tapster:header--><p>and</p><!--tapster:header-->"] {
            assert!(Framed::split(html).is_none(), "{html}");
        }
        let framed = Framed::split("<p>a</p><!--tapster:header--><p>b</p>").unwrap();
        assert_eq!(framed.with_header("<nav></nav>"), "<p>a</p><nav></nav><p>b</p>");
    }
}
