//! No two modules of the library import each other, directly or round a longer loop: the data
//! flows one way (scene → world → stages → output), and the file format depends on the engine,
//! never the reverse (docs/design.md, The frame, top to bottom). Reads `src/` as text: every
//! `super::x` and `crate::a::b` path of a file is an edge from its module to the sibling it
//! reaches; a module's own children and ancestors do not count, nor do unit-test files
//! (`tests.rs`, `*_tests.rs`), which may build their fixtures from the scene format.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Module = Vec<String>;

/// Every module of `src/` by its path (`world::held`), with its source.
fn modules(root: &Path) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if !name.ends_with(".rs") || name.ends_with("tests.rs") {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap().with_extension("");
            let mut module: Module = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().to_string())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            out.insert(module, std::fs::read_to_string(&path).unwrap());
        }
    }
    out
}

/// The paths a source names after `prefix` (`super::` or `crate::`), each as its segments; a
/// group `{a, b::c}` gives one path per member's first segment.
fn paths_after(source: &str, prefix: &str) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    for line in source.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(k) = rest.find(prefix) {
            let before = rest[..k].chars().last();
            rest = &rest[k + prefix.len()..];
            if before.is_some_and(ident) {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for member in group[..end].split(',') {
                    let first: String = member.trim().chars().take_while(|&c| ident(c)).collect();
                    if !first.is_empty() {
                        out.push(vec![first]);
                    }
                }
                continue;
            }
            let mut segments = Vec::new();
            let mut tail = rest;
            loop {
                let name: String = tail.chars().take_while(|&c| ident(c)).collect();
                if name.is_empty() {
                    break;
                }
                tail = &tail[name.len()..];
                segments.push(name);
                match tail.strip_prefix("::") {
                    Some(t) => tail = t,
                    None => break,
                }
            }
            if !segments.is_empty() {
                out.push(segments);
            }
        }
    }
    out
}

/// Edges between sibling modules: a file of module `m` naming a module `t` adds the edge
/// between their children of the deepest common ancestor.
fn sibling_edges(mods: &BTreeMap<Module, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, source) in mods {
        let parent = &m[..m.len().saturating_sub(1)];
        let mut targets: Vec<Vec<String>> = paths_after(source, "crate::");
        for p in paths_after(source, "super::") {
            let mut t = parent.to_vec();
            t.extend(p);
            targets.push(t);
        }
        for t in targets {
            let Some(target) = (1..=t.len())
                .rev()
                .map(|k| t[..k].to_vec())
                .find(|k| mods.contains_key(k))
            else {
                continue;
            };
            let common = m.iter().zip(&target).take_while(|(x, y)| x == y).count();
            if common == m.len() || common == target.len() {
                continue; // an ancestor or a descendant
            }
            let (a, b) = (m[..=common].to_vec(), target[..=common].to_vec());
            if a != b {
                edges.entry(a).or_default().insert(b);
            }
        }
    }
    edges
}

/// The strongly connected components of more than one module (Tarjan).
fn circles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct Search<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        found: Vec<Vec<Module>>,
    }
    impl Search<'_> {
        fn visit(&mut self, v: &Module) {
            let n = self.index.len();
            self.index.insert(v.clone(), n);
            self.low.insert(v.clone(), n);
            self.stack.push(v.clone());
            for w in self.edges.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v.clone(), low);
                } else if self.stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v.clone(), low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    let done = &w == v;
                    component.push(w);
                    if done {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let mut search = Search {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !search.index.contains_key(v) {
            search.visit(v);
        }
    }
    search.found
}

#[test]
fn no_two_modules_import_each_other() {
    let mods = modules(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(mods.len() > 100, "read {} modules", mods.len());
    let found = circles(&sibling_edges(&mods));
    for c in &found {
        let names: Vec<String> = c.iter().map(|m| m.join("::")).collect();
        eprintln!("import circle: {}", names.join(" → "));
    }
    eprintln!("{} modules, {} import circles", mods.len(), found.len());
    assert!(found.is_empty(), "{} import circles", found.len());
}

#[test]
fn a_circle_is_found() {
    // Two sibling files that name each other, and a third that only names one of them.
    let mut mods = BTreeMap::new();
    let m = |path: &str| path.split("::").map(str::to_string).collect::<Module>();
    mods.insert(m("world"), "mod a; mod b; mod c;".to_string());
    mods.insert(m("world::a"), "use super::b::Thing;".to_string());
    mods.insert(
        m("world::b"),
        "fn f() { crate::world::a::g(); }".to_string(),
    );
    mods.insert(m("world::c"), "use super::{a, b};".to_string());
    let found = circles(&sibling_edges(&mods));
    assert_eq!(found.len(), 1);
    let mut names: Vec<String> = found[0].iter().map(|m| m.join("::")).collect();
    names.sort();
    assert_eq!(names, ["world::a", "world::b"]);
}
