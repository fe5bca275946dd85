//! Walks the ingredient tree of a recipe down to its raw items, printing how many of each one batch
//! takes, how many crafts make them, and which member fills each ingredient group.
//!
//! ```sh
//! TAPSTER_URL=http://127.0.0.1:8080 TAPSTER_KEY=tap_... cargo run -p tapster-client --example recipe_tree -- cask-aged-barley-spirit
//! ```

#![allow(clippy::print_stdout, reason = "an example reports on the console")]

use std::fmt::Write as _;

use tapster_client::{Client, TreeItemNode, TreeNode, TreeQuery};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::var("TAPSTER_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".to_owned());
    let key = std::env::var("TAPSTER_KEY").map_err(|_| "set TAPSTER_KEY to an API key")?;
    let recipe = std::env::args().nth(1).unwrap_or_else(|| "cask-aged-barley-spirit".to_owned());
    let client = Client::builder(url, key).user_agent("tapster-client example recipe_tree").build()?;
    print!("{}", recipe_tree(&client, &recipe).await?);
    Ok(())
}

/// The tree of `recipe` (an id or slug), one line per node, indented by depth.
pub(crate) async fn recipe_tree(client: &Client, recipe: &str) -> tapster_client::Result<String> {
    let tree = client.recipe_tree(recipe, &TreeQuery::default()).await?.data;
    let mut out = String::new();
    walk(&tree, 0, &mut out);
    Ok(out)
}

fn walk(node: &TreeNode, depth: usize, out: &mut String) {
    match node {
        TreeNode::Item(node) => item(node, depth, out),
        TreeNode::Group(group) => {
            let indent = "  ".repeat(depth);
            let _ = writeln!(out, "{indent}{} x any of {}, filled by:", group.amount, group.group.name);
            if let Some(chosen) = &group.chosen {
                item(chosen, depth + 1, out);
            }
        }
        // A kind of node a newer server added: named, so the tree still reads.
        TreeNode::Unknown { kind } => {
            let _ = writeln!(out, "{}({kind})", "  ".repeat(depth));
        }
        // Kinds a later release of this crate knows.
        _ => {}
    }
}

fn item(node: &TreeItemNode, depth: usize, out: &mut String) {
    let indent = "  ".repeat(depth);
    let crafts = node.crafts.map(|c| format!(", {c} craft(s)")).unwrap_or_default();
    let value = &node.unit_value.display;
    let _ = writeln!(out, "{indent}{} x {} (each {value}{crafts})", node.amount, node.item.name);
    for child in &node.children {
        walk(child, depth + 1, out);
    }
}
