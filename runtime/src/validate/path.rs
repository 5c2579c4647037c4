//! Where a node is, for errors: a chain of segments on the stack, rendered as the apiserver's
//! `field.Path` text only when an error is reported, so walking allocates nothing. One type for
//! every walk (the rules, the OpenAPI checks, the list-type checks).

use std::fmt::Write;

/// A node's place in the object.
#[derive(Clone, Copy)]
pub(crate) enum Path<'a> {
    /// The root: `None` is the apiserver's nil path, `Some` a named root (`Options::root_path`).
    Root(Option<&'a str>),
    /// `.name` of an object.
    Child(&'a Path<'a>, &'a str),
    /// `[i]` of a list.
    Index(&'a Path<'a>, usize),
    /// `[key]` of a map.
    Key(&'a Path<'a>, &'a str),
}

impl<'a> Path<'a> {
    /// The nil root.
    pub(crate) const ROOT: Path<'static> = Path::Root(None);

    /// Writes the path; `named_root` says whether a named root is written (`field()`) or left
    /// out (`body()`: kube-openapi names a node from the root it was given).
    fn write(&self, out: &mut String, named_root: bool) {
        match self {
            Path::Root(root) => {
                if named_root {
                    out.push_str(root.unwrap_or_default());
                }
            }
            Path::Child(p, name) => {
                p.write(out, named_root);
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Path::Index(p, i) => {
                p.write(out, named_root);
                let _ = write!(out, "[{i}]");
            }
            Path::Key(p, k) => {
                p.write(out, named_root);
                let _ = write!(out, "[{k}]");
            }
        }
    }

    /// The root this path hangs from.
    pub(crate) fn root(&self) -> Path<'a> {
        match self {
            Path::Root(r) => Path::Root(*r),
            Path::Child(p, _) | Path::Index(p, _) | Path::Key(p, _) => p.root(),
        }
    }

    /// The field as `field.Path` prints it (`<nil>` for the nil root).
    pub(crate) fn field(&self) -> String {
        self.rendered("<nil>", true)
    }

    /// The name kube-openapi's messages use: relative to the root the validator was given
    /// (`status` of a status update is its root: `addresses[0] in body ...` at the field
    /// `status.addresses[0]`), empty for the root itself (` in body must be of type object`,
    /// `"" must validate one and only one schema`, as the oracle prints them).
    pub(crate) fn body(&self) -> String {
        self.rendered("", false)
    }

    fn rendered(&self, empty: &str, named_root: bool) -> String {
        let mut out = String::new();
        self.write(&mut out, named_root);
        if out.is_empty() {
            empty.to_owned()
        } else {
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Path;

    #[test]
    fn renders_as_field_path_does() {
        let spec = Path::Child(&Path::ROOT, "spec");
        let item = Path::Index(&spec, 2);
        let entry = Path::Key(&item, "a.b");
        assert_eq!(Path::ROOT.field(), "<nil>");
        assert_eq!(Path::ROOT.body(), "");
        assert_eq!(entry.field(), "spec[2][a.b]");
        let named = Path::Root(Some("self"));
        assert_eq!(Path::Child(&named, "x").field(), "self.x");
        assert_eq!(Path::Child(&named, "x").body(), "x");
        assert_eq!(named.body(), "");
        // A child of the nil root has no leading dot.
        assert_eq!(Path::Index(&Path::ROOT, 0).field(), "[0]");
    }
}
