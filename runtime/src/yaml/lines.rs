//! The line of a field in a document's YAML text, for messages and annotations on the failing
//! line: block mappings and sequences are followed by indentation; a field inside flow style
//! (`{...}`, `[...]`, JSON) or not found gives the line of the nearest enclosing field found.

/// One step of a field path: a mapping key or a sequence index.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// Parses an apiserver field path (`spec.ports[0].name`, `metadata.labels[app]`) into steps;
/// a bracket holding a number is an index, anything else a key.
fn parse_path(path: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(inner) = rest.strip_prefix('[') {
            let end = inner.find(']').unwrap_or(inner.len());
            let key = &inner[..end];
            steps.push(match key.parse() {
                Ok(i) => Step::Index(i),
                Err(_) => Step::Key(key.to_owned()),
            });
            rest = inner.get(end + 1..).unwrap_or_default();
            rest = rest.strip_prefix('.').unwrap_or(rest);
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            steps.push(Step::Key(rest[..end].to_owned()));
            rest = &rest[end..];
            rest = rest.strip_prefix('.').unwrap_or(rest);
        }
    }
    steps
}

/// An open node of the block structure: where it starts (column) and its step.
struct Open {
    column: usize,
    step: Step,
    item: bool,
}

/// The line (`first_line` + offset) of the field `path` (an apiserver field path,
/// `spec.ports[0].name`) in the YAML `text`, or of the nearest enclosing field found, or `None`
/// when not even the first step is found.
///
/// ```
/// let text = "spec:\n  ports:\n  - name: http\n    port: 80\n";
/// assert_eq!(crd_cel::yaml::line_of(text, 1, "spec.ports[0].port"), Some(4));
/// assert_eq!(crd_cel::yaml::line_of(text, 1, "spec.missing"), Some(1));
/// assert_eq!(crd_cel::yaml::line_of(text, 1, "status"), None);
/// ```
pub fn line_of(text: &str, first_line: usize, path: &str) -> Option<usize> {
    let want = parse_path(path);
    if want.is_empty() {
        return None;
    }
    let mut best: Option<(usize, usize)> = None; // (steps matched, line)
    let mut stack: Vec<Open> = Vec::new();
    let mut block_scalar: Option<usize> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = first_line + n;
        let indent = raw.len() - raw.trim_start_matches(' ').len();
        let content = raw[indent..].trim_end();
        if let Some(parent) = block_scalar {
            if content.is_empty() || indent > parent {
                continue;
            }
            block_scalar = None;
        }
        if content.is_empty() || content.starts_with('#') || content == "---" {
            continue;
        }
        let (mut column, mut rest) = (indent, content);
        let is_item = |r: &str| r == "-" || r.starts_with("- ");
        // Close what this line ends; a `- ` at the column of an open item is its next sibling.
        let mut next_index = 0;
        while let Some(top) = stack.last() {
            let sibling_item = top.item && top.column == column && is_item(rest);
            let compact_list = !top.item && top.column == column && is_item(rest);
            if top.column > column || (top.column == column && !compact_list) {
                if sibling_item && let Step::Index(i) = top.step {
                    next_index = i + 1;
                }
                stack.pop();
            } else {
                break;
            }
        }
        loop {
            if is_item(rest) {
                stack.push(Open {
                    column,
                    step: Step::Index(next_index),
                    item: true,
                });
                next_index = 0;
                let after = rest[1..].trim_start_matches(' ');
                column += rest.len() - after.len();
                rest = after;
                note(&stack, &want, line, &mut best);
                if rest.is_empty() {
                    break;
                }
                continue;
            }
            let Some((key, value)) = split_key(rest) else {
                break;
            };
            stack.push(Open {
                column,
                step: Step::Key(key),
                item: false,
            });
            note(&stack, &want, line, &mut best);
            if value.starts_with('|') || value.starts_with('>') {
                block_scalar = Some(column);
            }
            break;
        }
        if best.is_some_and(|(m, _)| m == want.len()) {
            break;
        }
    }
    best.map(|(_, line)| line)
}

/// Records `line` when the open path is a longer prefix of `want` than found so far.
fn note(stack: &[Open], want: &[Step], line: usize, best: &mut Option<(usize, usize)>) {
    if stack.len() > want.len() || stack.iter().zip(want).any(|(o, w)| o.step != *w) {
        return;
    }
    if best.is_none_or(|(m, _)| stack.len() > m) {
        *best = Some((stack.len(), line));
    }
}

/// `key: value` (or `key:` at the end of the line) with a plain or quoted key.
fn split_key(s: &str) -> Option<(String, &str)> {
    let (key, after) = if let Some(q) = s.strip_prefix('"') {
        let end = q.find('"')?;
        (q[..end].to_owned(), &q[end + 1..])
    } else if let Some(q) = s.strip_prefix('\'') {
        let end = q.find('\'')?;
        (q[..end].to_owned(), &q[end + 1..])
    } else {
        if s.starts_with(['{', '[', '&', '*', '!', '|', '>', '?']) {
            return None;
        }
        let end = s
            .find(": ")
            .or_else(|| s.ends_with(':').then(|| s.len() - 1))?;
        (s[..end].trim_end().to_owned(), &s[end..])
    };
    let value = after.strip_prefix(':')?;
    if !value.is_empty() && !value.starts_with(' ') {
        return None;
    }
    Some((key, value.trim_start()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "\
apiVersion: example.com/v1
kind: Counter
metadata:
  name: c2
  labels:
    app.kubernetes.io/name: web
spec:
  script: |
    limits:
      - value: 1
  limits:
  - name: a
    value: 0
  - name: b
    value: -1
    nested:
      - x: 1
      - x: 2
  \"quoted\": {a: [1, 2]}
";

    #[test]
    fn block_fields_are_found_by_their_path() {
        let at = |p: &str| line_of(DOC, 10, p);
        assert_eq!(at("spec"), Some(16));
        assert_eq!(at("spec.limits[0].value"), Some(22));
        assert_eq!(at("spec.limits[1]"), Some(23));
        assert_eq!(at("spec.limits[1].value"), Some(24));
        assert_eq!(at("spec.limits[1].nested[1].x"), Some(27));
        assert_eq!(at("metadata.labels[app.kubernetes.io/name]"), Some(15));
    }

    #[test]
    fn a_field_in_flow_style_or_absent_gives_the_nearest_enclosing_line() {
        let at = |p: &str| line_of(DOC, 1, p);
        assert_eq!(at("spec.quoted.a[1]"), Some(19));
        assert_eq!(at("spec.limits[5].value"), Some(11));
        assert_eq!(at("status.count"), None);
    }

    #[test]
    fn paths_parse_into_keys_and_indices() {
        assert_eq!(
            parse_path("spec.ports[0].labels[a.b/c]"),
            [
                Step::Key("spec".into()),
                Step::Key("ports".into()),
                Step::Index(0),
                Step::Key("labels".into()),
                Step::Key("a.b/c".into())
            ]
        );
    }
}
