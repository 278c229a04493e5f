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
        // Build output, version control and what git ignores (a local scratch folder) are
        // not part of the tree.
        let ignored = || {
            std::process::Command::new("git")
                .arg("-C")
                .arg(root)
                .args(["check-ignore", "-q", &name])
                .status()
                .is_ok_and(|s| s.success())
        };
        if name == "target" || name == ".git" || ignored() {
            continue;
        }
        folders += 1;
        if !named.contains(&name.as_str()) {
            missing.push(name);
        }
    }
    assert!(
        folders >= 10,
        "found only {folders} folders at {}",
        root.display()
    );
    assert!(missing.is_empty(), "README's Layout does not name: {missing:?}");
    for n in &named {
        assert!(
            root.join(n).is_dir(),
            "README's Layout names {n}/, which does not exist"
        );
    }
}

#[test]
fn the_specification_is_in_the_repository() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(root.join("docs/FORMAT.md").is_file());
    assert!(README.contains("docs/FORMAT.md"));
    assert!(
        !README.contains(concat!("..", "/shared")),
        "the README sends users outside the repository"
    );
}

/// The source files a test named in the README may live in.
fn sources(root: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "target" && name != ".git" && name != "corpus" {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") || name.ends_with(".c") {
            out.push(path);
        }
    }
}

/// Each test the README's "Bad input" sections name exists (a Rust `fn` or a C function),
/// and each path it names exists: the list cannot drift from the tests.
#[test]
fn bad_input_lines_name_real_tests() {
    let start = README.find("## Bad input").expect("a Bad input section");
    let end = README.find("## C and C++").expect("the C section follows");
    let section = &README[start..end];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(root, &mut files);
    let text: String = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let mut names = 0;
    let mut paths = 0;
    for (i, quoted) in section.split('`').enumerate() {
        if i % 2 == 0 {
            continue;
        }
        let is_name = quoted.len() > 8
            && quoted.contains('_')
            && !quoted.starts_with('_')
            && quoted
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if is_name {
            let found = text.contains(&format!("fn {quoted}(")) || text.contains(&format!("void {quoted}("));
            assert!(found, "README names a test `{quoted}` that does not exist");
            names += 1;
        } else if quoted.contains('/') && !quoted.contains(' ') && !quoted.contains("..") {
            let p = quoted.trim_end_matches('/');
            assert!(
                root.join(p).exists(),
                "README names `{quoted}`, which does not exist"
            );
            paths += 1;
        }
    }
    assert!(
        names >= 20,
        "only {names} test names found in the Bad input sections"
    );
    assert!(paths >= 3, "only {paths} paths found");
}
