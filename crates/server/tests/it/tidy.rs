//! The house rules that reviews kept finding broken, checked over the whole tree (as rust-analyzer's
//! tidy test does): every Rust file says what it is for; the pure crates know nothing of HTTP, the
//! clock or the environment; no `TODO` is left without its reason; no code cites a document outside
//! the repository; `docs/ARCHITECTURE.md` describes every crate, draws the crates' dependencies as the
//! manifests have them and `http`'s layers as its modules import; no crate's modules import each
//! other in a circle; and test-support is never published nor a dependency of a build.

use std::path::{Path, PathBuf};

/// The crates that read neither the clock nor the environment: the pure ones, which do no IO and know
/// nothing of the wire (docs/ARCHITECTURE.md), the wire's types themselves, and the site's look.
const TIMELESS: &[&str] = &["domain", "i18n", "pricing", "search", "site", "wire"];

/// The crates that know nothing of HTTP or the wire format: the pure ones, the store, and the site's
/// look (a header it is handed, no request, session or cookie).
const WIRE_FREE: &[&str] = &["domain", "i18n", "pricing", "search", "site", "store"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// Every `.rs` file under `dir`, recursively, in a stable order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

fn crates() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().join("Cargo.toml").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn every_rust_file_starts_with_what_it_is_for() {
    let missing: Vec<PathBuf> = rust_files(&workspace().join("crates"))
        .into_iter()
        .filter(|file| !std::fs::read_to_string(file).unwrap().starts_with("//!"))
        .collect();
    assert!(missing.is_empty(), "files without a `//!` comment first: {missing:#?}");
}

/// Whether `line` names a route of the API (`/v1/items`, `/v1`), not a version (`data/v1.0.1.0.0`).
fn names_a_route(line: &str) -> bool {
    line.match_indices("/v1")
        .any(|(at, _)| !line[at + 3..].starts_with(|c: char| c == '.' || c.is_ascii_digit()))
}

/// Whether `text` starts with a parameter name and `=`: `limit=`.
fn assigns(text: &str) -> bool {
    let name = text.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').count();
    name > 0 && text[name..].starts_with('=')
}

/// Whether `line` writes a query parameter as a request would: `?limit=`, `&offset=`, or a quoted
/// `` `aging=none` ``.
fn has_query_syntax(line: &str) -> bool {
    let after_separator = line.match_indices(['?', '&']).any(|(at, _)| assigns(&line[at + 1..]));
    let quoted = line.split('`').skip(1).step_by(2).any(|code| assigns(code) && !code.contains(' '));
    after_separator || quoted
}

/// Each line of the sources of `crates` that `breaks` a rule, as `file:line: why`.
fn breaches(crates: &[&str], breaks: impl Fn(&str) -> Option<String>) -> Vec<String> {
    let sources =
        crates.iter().flat_map(|name| rust_files(&workspace().join("crates").join(name).join("src")));
    breaches_in(sources, breaks)
}

/// Every line of `files` that `breaks` finds fault with, as `path:line: why`.
fn breaches_in(
    files: impl IntoIterator<Item = PathBuf>,
    breaks: impl Fn(&str) -> Option<String>,
) -> Vec<String> {
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (number, line) in text.lines().enumerate() {
            if let Some(why) = breaks(line) {
                found.push(format!("{}:{}: {why}", file.display(), number + 1));
            }
        }
    }
    found
}

#[test]
fn the_pure_crates_read_neither_the_clock_nor_the_environment() {
    const FORBIDDEN: &[&str] = &["SystemTime::now", "Instant::now", "Utc::now", "std::env", "env::var"];
    let found =
        breaches(TIMELESS, |line| FORBIDDEN.iter().find(|f| line.contains(**f)).map(|f| f.to_string()));
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_crates_below_http_know_nothing_of_it() {
    const FORBIDDEN: &[&str] = &["hyper", "http::"];
    let found = breaches(WIRE_FREE, |line| match FORBIDDEN.iter().find(|f| line.contains(**f)) {
        Some(f) => Some(f.to_string()),
        None if names_a_route(line) => Some(format!("a route in {line:?}")),
        None => has_query_syntax(line).then(|| format!("query syntax in {line:?}")),
    });
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The edge serves whatever service it is given: it speaks HTTP (and reads `Forwarded`'s `for=`,
/// so query-like syntax is no sign here), but names no route of the API.
#[test]
fn the_edge_knows_no_route() {
    let found = breaches(&["edge"], |line| names_a_route(line).then(|| format!("a route in {line:?}")));
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// A `TODO` says why: `TODO(#15): ...` or `TODO: ` and a sentence of at least three words.
fn todo_has_a_reason(line: &str) -> bool {
    line.match_indices("TODO").all(|(at, _)| {
        let rest = &line[at + 4..];
        rest.starts_with('(')
            || rest.strip_prefix(": ").is_some_and(|why| why.split_whitespace().count() >= 3)
    })
}

#[test]
fn no_todo_is_left_without_its_reason() {
    let mut found = Vec::new();
    for file in rust_files(&workspace().join("crates")) {
        let text = std::fs::read_to_string(&file).unwrap();
        for (number, line) in text.lines().enumerate() {
            if line.contains("TODO") && !todo_has_a_reason(line) && !file.ends_with("tidy.rs") {
                found.push(format!("{}:{}: {}", file.display(), number + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_architecture_describes_every_crate() {
    let architecture = std::fs::read_to_string(workspace().join("docs/ARCHITECTURE.md")).unwrap();
    let undescribed: Vec<String> = crates()
        .into_iter()
        .filter(|name| !architecture.contains(&format!("## `crates/{name}` (`tapster-{name}`")))
        .collect();
    assert!(undescribed.is_empty(), "crates without their section in docs/ARCHITECTURE.md: {undescribed:?}");
    assert!(crates().len() >= 10, "{:?}", crates());
}

/// Whether `line` cites a document that is not in the repository: the specification by section
/// (`spec 2.4`, `Spec §4`), the API contract, or a path that leaves the checkout (`../shared/`).
fn cites_outside(line: &str) -> bool {
    let lower = line.to_lowercase();
    let section = |word: &str| {
        lower.match_indices(word).any(|(at, _)| {
            let before = &lower[..at];
            let after = lower[at + word.len()..].trim_start_matches([' ', '§']);
            !before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
                && lower[at + word.len()..].starts_with([' ', '§'])
                && after.starts_with(|c: char| c.is_ascii_digit())
        })
    };
    section("spec")
        || section("specification")
        || lower.contains("the contract")
        || lower.contains("api-contract")
        || lower.contains("../shared")
        || lower.contains("/work/")
}

/// Every file of a crate that holds code: its sources, tests, examples, benchmarks and build script.
fn code_files(name: &str) -> Vec<PathBuf> {
    let root = workspace().join("crates").join(name);
    let mut files: Vec<PathBuf> = ["src", "tests", "examples", "benches"]
        .into_iter()
        .map(|dir| root.join(dir))
        .filter(|dir| dir.is_dir())
        .flat_map(|dir| rust_files(&dir))
        .collect();
    files.extend(Some(root.join("build.rs")).filter(|file| file.exists()));
    files
}

/// The crates' code and tests cite what a reader of the repository can open (docs/api.md's sections,
/// the other docs), never a document that lives elsewhere. This file names the citations it looks
/// for, so it is the one left out.
#[test]
fn no_file_cites_a_document_outside_the_repository() {
    let files = crates().into_iter().flat_map(|name| code_files(&name));
    let files = files.filter(|file| !file.ends_with("tests/it/tidy.rs"));
    let found = breaches_in(files, |line| cites_outside(line).then(|| line.trim().to_owned()));
    assert!(found.is_empty(), "cite docs/ instead:\n{}", found.join("\n"));
    assert!(code_files("server").len() > 20, "the crates' files are found");
}

/// The layers of `crates/http` as docs/ARCHITECTURE.md draws them, top first: the modules of each
/// line, from the first fenced `text` block of the crate's section ("`app`  what it is" per line,
/// several modules of one layer separated by commas).
fn http_layers(architecture: &str) -> Vec<Vec<String>> {
    let section = architecture.split("## `crates/http` (`tapster-http`)").nth(1).expect("the http section");
    let section = section.split("\n## ").next().unwrap_or_default();
    let block = section.split("```text\n").nth(1).and_then(|rest| rest.split("```").next());
    let block = block.expect("a ```text block of layers in the http section of docs/ARCHITECTURE.md");
    block
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let modules = line.split("  ").next().unwrap_or_default();
            modules.split(',').map(|m| m.trim().trim_matches('`').to_owned()).collect()
        })
        .collect()
}

/// `source` without its comments, a line for a line.
fn code_of(source: &str) -> String {
    source
        .lines()
        .map(|line| if line.trim_start().starts_with("//") { "\n" } else { line })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segment of every path `source` starts at its crate's root (`crate::views::item_summary`
/// gives `views`; `use crate::{a::{x, y}, B}` gives `a` and `B`), outside comments.
fn crate_paths(source: &str) -> Vec<String> {
    let code = code_of(source);
    let identifier = |text: &str| -> String {
        text.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
    };
    let mut named = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue; // `tapster_http::...`: another crate's path
        }
        let rest = &code[at + "crate::".len()..];
        let Some(group) = rest.strip_prefix('{') else {
            named.push(identifier(rest));
            continue;
        };
        // The items of the group, split at its own commas, not those of a group inside it.
        let (mut depth, mut start) = (0usize, 0usize);
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    named.push(identifier(&group[start..i]));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    named.push(identifier(&group[start..i]));
                    start = i + 1;
                }
                _ => {}
            }
        }
    }
    named.retain(|name| !name.is_empty() && name != "self");
    named
}

/// What the root of the crate at `src` re-exports, by name: `pub use app::{App, Pages}` gives
/// `App` and `Pages` from `app`.
fn reexports(src: &Path) -> Vec<(String, String)> {
    let root = ["lib.rs", "main.rs"].map(|file| src.join(file)).into_iter().find(|file| file.exists());
    let code = code_of(&root.map(|file| std::fs::read_to_string(file).unwrap()).unwrap_or_default());
    let mut found = Vec::new();
    for statement in code.split(';') {
        let statement = statement.trim();
        let Some((_, path)) =
            statement.split_once("use ").filter(|(visibility, _)| visibility.starts_with("pub"))
        else {
            continue;
        };
        let Some((module, items)) = path.split_once("::") else { continue };
        for item in items.trim_matches(['{', '}']).split(',') {
            let name = item.split(" as ").last().unwrap_or_default().trim().to_owned();
            if !name.is_empty() && !name.contains(':') {
                found.push((name, module.trim().to_owned()));
            }
        }
    }
    found
}

/// The top-level modules of the crate at `src` and, for each, the others it names: through
/// `crate::x`, `crate::Thing` that the root re-exports from `x`, or `super::x` from a file right
/// under `src`; outside comments. The crate roots themselves are left out.
fn module_imports(src: &Path) -> Vec<(String, Vec<String>)> {
    let files: Vec<(String, PathBuf)> = rust_files(src)
        .into_iter()
        .map(|file| (file.strip_prefix(src).unwrap().to_string_lossy().into_owned(), file))
        .filter(|(relative, _)| !["lib.rs", "main.rs", "build.rs"].contains(&relative.as_str()))
        .collect();
    let module_of = |relative: &str| relative.split('/').next().unwrap().trim_end_matches(".rs").to_owned();
    let modules: Vec<String> = files.iter().map(|(relative, _)| module_of(relative)).collect();
    let reexports = reexports(src);
    let resolve = |name: &str| -> Option<String> {
        if modules.iter().any(|m| m == name) {
            return Some(name.to_owned());
        }
        reexports.iter().find(|(item, _)| item == name).map(|(_, module)| module.clone())
    };
    let mut imports: Vec<(String, Vec<String>)> = Vec::new();
    for (relative, file) in &files {
        let module = module_of(relative);
        let text = std::fs::read_to_string(file).unwrap();
        let top_level = !relative.contains('/') || relative.ends_with("/mod.rs");
        let mut paths = crate_paths(&text);
        if top_level {
            paths.extend(crate_paths(&text.replace("super::", "crate::")));
        }
        let named: Vec<String> =
            paths.iter().filter_map(|name| resolve(name)).filter(|named| *named != module).collect();
        match imports.iter_mut().find(|(m, _)| *m == module) {
            Some((_, list)) => list.extend(named),
            None => imports.push((module, named)),
        }
    }
    for (_, list) in &mut imports {
        list.sort();
        list.dedup();
    }
    imports
}

/// `crates/http` is built in layers, so that each module can be read and tested with only what is
/// below it: the code that writes the document sits above the handlers it describes, not upstream of
/// them. A module may name only the modules of lower layers; the layers are the ones
/// docs/ARCHITECTURE.md draws, so that the drawing is the rule.
#[test]
fn the_http_modules_import_only_the_layers_below_them() {
    let architecture = std::fs::read_to_string(workspace().join("docs/ARCHITECTURE.md")).unwrap();
    let layers = http_layers(&architecture);
    let layer_of = |module: &str| layers.iter().position(|layer| layer.iter().any(|m| m == module));
    let imports = module_imports(&workspace().join("crates/http/src"));
    let unplaced: Vec<&String> =
        imports.iter().map(|(module, _)| module).filter(|m| layer_of(m).is_none()).collect();
    assert!(unplaced.is_empty(), "modules of crates/http in no layer of docs/ARCHITECTURE.md: {unplaced:?}");
    let drawn: Vec<&String> = layers.iter().flatten().collect();
    let gone: Vec<&&String> =
        drawn.iter().filter(|m| !imports.iter().any(|(module, _)| module == **m)).collect();
    assert!(gone.is_empty(), "docs/ARCHITECTURE.md draws modules crates/http does not have: {gone:?}");
    let mut upward = Vec::new();
    for (module, named) in &imports {
        let own = layer_of(module).unwrap();
        upward.extend(
            named
                .iter()
                .filter(|n| layer_of(n).is_none_or(|layer| layer <= own))
                .map(|n| format!("crates/http/src/{module} names `crate::{n}`, which is not below it")),
        );
    }
    assert!(upward.is_empty(), "{}", upward.join("\n"));
    assert!(layers.len() >= 5 && imports.iter().map(|(_, n)| n.len()).sum::<usize>() > 40, "{imports:?}");
}

/// The first circle among `imports` (a module that, through the modules it names, names itself),
/// as the path around it.
fn circle(imports: &[(String, Vec<String>)]) -> Option<Vec<String>> {
    let names = |module: &str| imports.iter().find(|(m, _)| m == module).map(|(_, n)| n.clone());
    for (start, _) in imports {
        // Depth-first from `start`, looking for the way back to it.
        let mut stack = vec![vec![start.clone()]];
        let mut seen = vec![start.clone()];
        while let Some(path) = stack.pop() {
            for next in names(path.last().unwrap()).unwrap_or_default() {
                if next == *start {
                    return Some(path.into_iter().chain([next]).collect());
                }
                if !seen.contains(&next) {
                    seen.push(next.clone());
                    stack.push(path.iter().cloned().chain([next]).collect());
                }
            }
        }
    }
    None
}

/// No crate's modules import each other in a circle, so each can be read with only what it names:
/// two modules that need each other are one module, or share a third below both.
#[test]
fn no_crate_has_modules_that_import_each_other_in_a_circle() {
    let mut edges = 0;
    let circles: Vec<String> = crates()
        .into_iter()
        .filter_map(|name| {
            let imports = module_imports(&workspace().join("crates").join(&name).join("src"));
            edges += imports.iter().map(|(_, named)| named.len()).sum::<usize>();
            circle(&imports).map(|path| format!("crates/{name}: {}", path.join(" -> ")))
        })
        .collect();
    assert!(circles.is_empty(), "modules that import each other in a circle:\n{}", circles.join("\n"));
    assert!(edges > 100, "the imports between modules are found: {edges}");
}

/// Each crate's dependencies of ours as docs/ARCHITECTURE.md draws them: the first fenced `text`
/// block, before the crates' sections, one crate a line and `-` for none (`store  pricing, domain`).
fn drawn_dependencies(architecture: &str) -> Vec<(String, Vec<String>)> {
    let overview = architecture.split("\n## ").next().unwrap_or_default();
    let block = overview.split("```text\n").nth(1).and_then(|rest| rest.split("```").next());
    let block = block.expect("a ```text block of the crates' dependencies before the crates' sections");
    block
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(name, deps)| {
            let deps = deps.split(',').map(str::trim).filter(|d| *d != "-").map(str::to_owned).collect();
            (name.to_owned(), deps)
        })
        .collect()
}

/// The drawing of the crates' dependencies in docs/ARCHITECTURE.md is the manifests': every crate is
/// in it with exactly the crates of ours it builds with.
#[test]
fn the_architecture_draws_the_dependencies_the_manifests_have() {
    let architecture = std::fs::read_to_string(workspace().join("docs/ARCHITECTURE.md")).unwrap();
    let mut drawn = drawn_dependencies(&architecture);
    drawn.iter_mut().for_each(|(_, deps)| deps.sort());
    drawn.sort();
    let mut manifests: Vec<(String, Vec<String>)> = crates()
        .into_iter()
        .map(|name| {
            let manifest = std::fs::read_to_string(workspace().join("crates").join(&name).join("Cargo.toml"));
            let mut deps: Vec<String> = manifest_lines(&manifest.unwrap())
                .into_iter()
                .filter(|(table, _)| table == "dependencies")
                .filter_map(|(_, line)| line.strip_prefix("tapster-").map(str::to_owned))
                .map(|line| line.split(['.', '=']).next().unwrap_or_default().to_owned())
                .collect();
            deps.sort();
            (name, deps)
        })
        .collect();
    manifests.sort();
    assert_eq!(drawn, manifests, "docs/ARCHITECTURE.md's drawing of the dependencies, then the manifests'");
}

/// The `(table, line)` pairs of a Cargo manifest, without comments, blank lines or white space:
/// `("package", "publish=false")`.
fn manifest_lines(manifest: &str) -> Vec<(String, String)> {
    let mut table = String::new();
    let mut lines = Vec::new();
    for line in manifest.lines() {
        let line: String = line.split('#').next().unwrap_or_default().split_whitespace().collect();
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            table = header.to_owned();
        } else if !line.is_empty() {
            lines.push((table.clone(), line));
        }
    }
    lines
}

/// Whether a manifest table lists what the crate itself is built with: `[dependencies]`,
/// `[build-dependencies]`, their `[target.'cfg(..)'.dependencies]` forms and one-dependency tables
/// (`[dependencies.serde]`); not `[dev-dependencies]`, nor the workspace's declarations.
fn builds_with(table: &str) -> bool {
    !table.starts_with("workspace.")
        && table.split('.').any(|part| part == "dependencies" || part == "build-dependencies")
}

#[test]
fn test_support_is_only_a_dev_dependency_and_is_never_published() {
    let read = |path: PathBuf| std::fs::read_to_string(path).unwrap();
    let mut found = Vec::new();
    for name in crates() {
        let path = workspace().join("crates").join(&name).join("Cargo.toml");
        for (table, line) in manifest_lines(&read(path.clone())) {
            if builds_with(&table) && (table.contains("test-support") || line.contains("test-support")) {
                found.push(format!("{}: [{table}] {line}", path.display()));
            }
        }
    }
    assert!(found.is_empty(), "test-support outside [dev-dependencies]:\n{}", found.join("\n"));

    let publish = |manifest: &str, in_table: &str| {
        manifest_lines(manifest)
            .into_iter()
            .find(|(table, line)| table == in_table && line.starts_with("publish"))
            .map(|(_, line)| line)
    };
    let own = publish(&read(workspace().join("crates/test-support/Cargo.toml")), "package");
    let unpublished = match own.as_deref() {
        Some("publish=false") => true,
        Some("publish.workspace=true") => {
            publish(&read(workspace().join("Cargo.toml")), "workspace.package").as_deref()
                == Some("publish=false")
        }
        _ => false,
    };
    assert!(
        unpublished,
        "crates/test-support must set publish = false, itself or through the workspace: {own:?}"
    );
}

/// The rules' own helpers, on lines that break them and lines that keep them.
#[test]
fn the_rules_tell_breaking_lines_from_keeping_ones() {
    assert!(has_query_syntax("see /v1/items?limit=3"));
    assert!(has_query_syntax("`a=1&offset=5`"));
    assert!(!has_query_syntax("if a && b == c { x?; }"));
    assert!(!has_query_syntax("let y = x?;"));
    assert!(has_query_syntax("ask with `aging=none`"));
    assert!(names_a_route("the items of `/v1/items`") && names_a_route("under /v1"));
    assert!(!names_a_route("fixtures/mini/v1.0.1.0.0"));
    assert!(!has_query_syntax("`a == b` and `x = 1`"));
    assert_eq!(
        crate_paths(
            "use crate::{a::{x, y}, B, self};\n// crate::c\nlet y = crate::d::f(tapster_http::e::g);"
        ),
        ["a", "B", "d"]
    );
    assert_eq!(
        http_layers(
            "## `crates/http` (`tapster-http`)\n\n```text\n`app`, `front`  top\n`gate`  bottom\n```\n"
        ),
        [vec!["app", "front"], vec!["gate"]]
    );
    assert_eq!(
        drawn_dependencies(
            "# A\n\n```text\nhttp      store, wire\ndomain    -\n```\n## `crates/x`\n```text\nno\n```"
        ),
        [("http".to_owned(), vec!["store".to_owned(), "wire".to_owned()]), ("domain".to_owned(), vec![])]
    );
    let imports = |pairs: &[(&str, &[&str])]| -> Vec<(String, Vec<String>)> {
        pairs.iter().map(|(m, n)| ((*m).to_owned(), n.iter().map(|x| (*x).to_owned()).collect())).collect()
    };
    assert_eq!(circle(&imports(&[("a", &["b"]), ("b", &["c"]), ("c", &[])])), None);
    assert_eq!(
        circle(&imports(&[("a", &["b"]), ("b", &["c"]), ("c", &["a"])])),
        Some(vec!["a".to_owned(), "b".to_owned(), "c".to_owned(), "a".to_owned()])
    );
    assert!(cites_outside("/// A record by id or slug (spec 2.4).") && cites_outside("see ../shared/x.md"));
    assert!(cites_outside("Spec §4 says") && cites_outside("as the contract's commands write it"));
    assert!(cites_outside("(specification 4.6)") && !cites_outside("a specification of the format"));
    assert!(
        !cites_outside("let spec = 3;") && !cites_outside("respec 2 times") && !cites_outside("docs/api.md")
    );
    assert!(todo_has_a_reason("// TODO(#15): move to Redis"));
    assert!(todo_has_a_reason("// TODO: the limiter needs a clock"));
    assert!(!todo_has_a_reason("// TODO fix"));
    assert!(!todo_has_a_reason("// TODO: later"));
    for table in
        ["dependencies", "build-dependencies", "target.'cfg(unix)'.dependencies", "dependencies.serde"]
    {
        assert!(builds_with(table), "{table}");
    }
    for table in
        ["dev-dependencies", "target.'cfg(unix)'.dev-dependencies", "workspace.dependencies", "package"]
    {
        assert!(!builds_with(table), "{table}");
    }
    assert_eq!(
        manifest_lines("[package]\npublish = false # never\n\n[dependencies]\nx = { path = \"x\" }\n"),
        [
            ("package".to_owned(), "publish=false".to_owned()),
            ("dependencies".to_owned(), "x={path=\"x\"}".to_owned())
        ]
    );
}
