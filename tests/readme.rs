//! The README stays true to the tree: its layout section names every top-level folder, and
//! it points to the specification that is in the repository.

const README: &str = include_str!("../README.md");

fn layout_block() -> &'static str {
    let start = README.find("## Layout").expect("README has a Layout section");
    let rest = &README[start..];
    let open = rest.find("```text\n").expect("the layout is a text block") + 8;
    let close = rest[open..].find("```").expect("the block ends") + open;
    &rest[open..close]
}

#[test]
fn layout_lists_every_top_level_folder() {
    let block = layout_block();
    let named: Vec<&str> = block
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.ends_with('/'))
        .map(|w| w.trim_end_matches('/'))
        .collect();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut missing = Vec::new();
    let mut folders = 0;
    for entry in std::fs::read_dir(root).unwrap() {
        let entry = entry.unwrap();
        if !entry.file_type().unwrap().is_dir() {
            continue;
        }
        let name = entry.file_name().into_string().unwrap();
        // Build output and version control are not part of the tree.
        if name == "target" || name == ".git" {
            continue;
        }
        folders += 1;
        if !named.contains(&name.as_str()) {
            missing.push(name);
        }
    }
    assert!(folders >= 10, "found only {folders} folders at {}", root.display());
    assert!(missing.is_empty(), "README's Layout does not name: {missing:?}");
    for n in &named {
        assert!(root.join(n).is_dir(), "README's Layout names {n}/, which does not exist");
    }
}

#[test]
fn the_specification_is_in_the_repository() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(root.join("docs/FORMAT.md").is_file());
    assert!(README.contains("docs/FORMAT.md"));
    assert!(!README.contains("../shared"), "the README sends users outside the repository");
}
