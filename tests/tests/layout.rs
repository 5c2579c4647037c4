//! The source layout the restructuring (issue 15) set up, kept by a test:
//!
//! - **no module cycles**: among the child modules of any module of core, runtime, macros and
//!   cli, the "uses" relation (a `use` or a path through `crate::`, `super::` or `self::` in any
//!   file of a child's subtree naming another child's subtree) has no cycle. Test modules
//!   (`#[cfg(test)]`) are left out: they are not part of the built crate, and a test of the cost
//!   estimator needs a checked expression whichever way the library's layers go.
//! - **files of one concern**: no source file of those crates is over 1,000 lines, apart from
//!   test modules and generated tables (files that start with `// @generated`: the Kubernetes
//!   models that `tests/k8s-models` writes).
//!
//! The module tree is read the way rustc reads it: from `lib.rs` through `mod` items (inline or
//! file, `#[path]` honoured), with syn, so a module that is not compiled is not counted.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use syn::visit::Visit;

const CRATES: [&str; 4] = ["core", "runtime", "macros", "cli"];
const MAX_LINES: usize = 1000;

type ModPath = Vec<String>;

/// One crate's modules, the files they are written in, and the paths each module's code names.
#[derive(Default)]
struct Crate {
    modules: BTreeSet<ModPath>,
    files: Vec<(PathBuf, ModPath)>,
    /// (module the reference is written in, the path it names as written, resolved to a crate
    /// path, the file).
    refs: Vec<(ModPath, ModPath, PathBuf)>,
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Resolves a path written in module `here` that starts with `crate`, `super` or `self` to the
/// crate path it names; other paths (external crates, locals, std) are not edges.
fn resolve(here: &ModPath, segments: &[String]) -> Option<ModPath> {
    let mut out: ModPath = match segments.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("super" | "self") => here.clone(),
        _ => return None,
    };
    let mut rest = &segments[1..];
    if segments[0] == "super" {
        out.pop();
    }
    while let Some(s) = rest.first() {
        match s.as_str() {
            "super" => {
                out.pop();
            }
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    out.extend(rest.iter().cloned());
    Some(out)
}

struct Refs<'a> {
    here: ModPath,
    krate: &'a mut Crate,
    file: PathBuf,
    /// Where the files of this module's child modules are.
    dir: PathBuf,
    errors: &'a mut Vec<String>,
}

impl Refs<'_> {
    fn record(&mut self, segments: Vec<String>) {
        if let Some(target) = resolve(&self.here, &segments) {
            self.krate
                .refs
                .push((self.here.clone(), target, self.file.clone()));
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut s = prefix.clone();
                if n.ident != "self" {
                    s.push(n.ident.to_string());
                }
                self.record(s);
            }
            syn::UseTree::Rename(r) => {
                let mut s = prefix.clone();
                if r.ident != "self" {
                    s.push(r.ident.to_string());
                }
                self.record(s);
            }
            syn::UseTree::Glob(_) => self.record(prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Refs<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if !is_cfg_test(&u.attrs) {
            self.use_tree(&mut Vec::new(), &u.tree);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        self.record(p.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, p);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_cfg_test(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if !is_cfg_test(&i.attrs) {
            syn::visit::visit_item_impl(self, i);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if is_cfg_test(&m.attrs) {
            return;
        }
        let name = m.ident.to_string();
        let mut child = self.here.clone();
        child.push(name.clone());
        match &m.content {
            Some((_, items)) => {
                self.krate.modules.insert(child.clone());
                let mut inner = Refs {
                    here: child,
                    krate: self.krate,
                    file: self.file.clone(),
                    dir: self.dir.join(&name),
                    errors: self.errors,
                };
                for item in items {
                    inner.visit_item(item);
                }
            }
            None => {
                let file = match path_attr(&m.attrs) {
                    Some(p) => self.file.parent().expect("a file has a folder").join(p),
                    None => {
                        let flat = self.dir.join(format!("{name}.rs"));
                        if flat.exists() {
                            flat
                        } else {
                            self.dir.join(&name).join("mod.rs")
                        }
                    }
                };
                read_module(self.krate, &file, child, self.errors);
            }
        }
    }
}

/// Reads the module `path` written in `file`, and the modules it declares.
fn read_module(krate: &mut Crate, file: &Path, path: ModPath, errors: &mut Vec<String>) {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            errors.push(format!("{}: {e}", file.display()));
            return;
        }
    };
    let ast = match syn::parse_file(&text) {
        Ok(a) => a,
        Err(e) => {
            errors.push(format!("{}: does not parse with syn: {e}", file.display()));
            return;
        }
    };
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let folder = file.parent().expect("a file has a folder");
    // `mod.rs`, `lib.rs`, `main.rs` and `#[path]` files of a `mod.rs`-style module keep their
    // children beside them; `name.rs` keeps them in `name/`.
    let dir = if matches!(stem, "mod" | "lib" | "main") {
        folder.to_path_buf()
    } else {
        folder.join(stem)
    };
    krate.modules.insert(path.clone());
    krate.files.push((file.to_path_buf(), path.clone()));
    let mut refs = Refs {
        here: path,
        krate,
        file: file.to_path_buf(),
        dir,
        errors,
    };
    refs.visit_file(&ast);
}

fn read_crate(name: &str, errors: &mut Vec<String>) -> Crate {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
        .join("src/lib.rs");
    let mut krate = Crate::default();
    read_module(&mut krate, &root, Vec::new(), errors);
    krate
}

/// For each module, the edges between its children: (parent, from, to) -> files.
fn sibling_edges(krate: &Crate) -> BTreeMap<(ModPath, String, String), BTreeSet<PathBuf>> {
    let mut edges: BTreeMap<_, BTreeSet<PathBuf>> = BTreeMap::new();
    for (from, to, file) in &krate.refs {
        // The module the path names: its longest prefix that is a module (the rest are items).
        let mut to = to.clone();
        while !to.is_empty() && !krate.modules.contains(&to) {
            to.pop();
        }
        let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
        if common < from.len() && common < to.len() {
            edges
                .entry((
                    from[..common].to_vec(),
                    from[common].clone(),
                    to[common].clone(),
                ))
                .or_default()
                .insert(file.clone());
        }
    }
    edges
}

/// The strongly connected components of more than one node (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        if let Some(next) = s.graph.get(v) {
            for w in next {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if s.stack.contains(&w) {
                    let iw = s.index[w];
                    let lv = s.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                comp.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn module_cycles(krate: &Crate) -> String {
    let edges = sibling_edges(krate);
    let mut graphs: BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (parent, from, to) in edges.keys() {
        graphs
            .entry(parent.clone())
            .or_default()
            .entry(from.clone())
            .or_default()
            .insert(to.clone());
    }
    let mut report = String::new();
    for (parent, graph) in &graphs {
        for comp in cycles(graph) {
            let parent_name = if parent.is_empty() {
                "crate".to_owned()
            } else {
                parent.join("::")
            };
            let _ = writeln!(report, "  among the children of {parent_name}: {comp:?}");
            for from in &comp {
                for to in &graph[from] {
                    if comp.contains(to) {
                        let files = &edges[&(parent.clone(), from.clone(), to.clone())];
                        let _ = writeln!(report, "    {from} -> {to}: {files:?}");
                    }
                }
            }
        }
    }
    report
}

#[test]
fn no_module_cycles() {
    let mut errors = Vec::new();
    let mut report = String::new();
    for name in CRATES {
        let krate = read_crate(name, &mut errors);
        assert!(
            krate.modules.len() > 3,
            "{name}: the module tree was not read ({} modules)",
            krate.modules.len()
        );
        let r = module_cycles(&krate);
        if !r.is_empty() {
            let _ = write!(report, "{name}:\n{r}");
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    assert!(report.is_empty(), "module cycles:\n{report}");
}

#[test]
fn no_source_file_over_1000_lines() {
    let mut errors = Vec::new();
    let mut long = Vec::new();
    for name in CRATES {
        let krate = read_crate(name, &mut errors);
        for (file, _) in &krate.files {
            let text = std::fs::read_to_string(file).expect("read before");
            if text.starts_with("// @generated") {
                continue;
            }
            let lines = text.lines().count();
            if lines > MAX_LINES {
                long.push(format!("{} ({lines} lines)", file.display()));
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:?}");
}

/// The checks above see what they must: a cycle written into a crate's text is found.
#[test]
fn a_cycle_is_found() {
    let mut krate = Crate::default();
    for m in [&["a"][..], &["b"], &["a", "x"]] {
        krate
            .modules
            .insert(m.iter().map(|s| (*s).to_owned()).collect());
    }
    let a_x: ModPath = vec!["a".into(), "x".into()];
    let b: ModPath = vec!["b".into()];
    // a::x uses crate::b::f, b uses super::a::T.
    let to_b = resolve(&a_x, &["crate".into(), "b".into(), "f".into()]).expect("crate path");
    let to_a = resolve(&b, &["super".into(), "a".into(), "T".into()]).expect("super path");
    krate.refs.push((a_x, to_b, PathBuf::from("a/x.rs")));
    krate.refs.push((b, to_a, PathBuf::from("b.rs")));
    let r = module_cycles(&krate);
    assert!(r.contains(r#"children of crate: ["a", "b"]"#), "{r}");
}
