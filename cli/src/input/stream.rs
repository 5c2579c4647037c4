//! Splitting a stream into documents as kubectl's YAML reader does
//! (`k8s.io/apimachinery/pkg/util/yaml`'s `YAMLReader`): at every line that starts with `---`,
//! which may be followed by spaces and a comment only; a stretch with no bytes at all (two
//! separators in a row, a separator on the first line) is not a document.

/// One document's text, and the line (1-based) of the file where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Chunk<'a> {
    pub(super) first_line: usize,
    /// Where the text starts in the stream (bytes).
    pub(super) start: usize,
    pub(super) text: &'a str,
}

impl Chunk<'_> {
    /// The line of the document's first content: not blank, not a comment.
    pub(super) fn content_line(&self) -> usize {
        let skipped = self
            .text
            .lines()
            .take_while(|l| {
                let t = l.trim_start();
                t.is_empty() || t.starts_with('#')
            })
            .count();
        self.first_line + skipped
    }
}

/// A separator line with something after the `---` that is not a comment, which kubectl
/// refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct BadSeparator {
    pub(super) line: usize,
    pub(super) message: String,
}

pub(super) fn chunks(text: &str) -> Result<Vec<Chunk<'_>>, BadSeparator> {
    let mut out = Vec::new();
    let (mut start, mut start_line) = (0usize, 1usize);
    let mut offset = 0usize;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let line_no = i + 1;
        if let Some(rest) = line.strip_prefix("---") {
            let rest = rest.trim();
            if !rest.is_empty() && !rest.starts_with('#') {
                return Err(BadSeparator {
                    line: line_no,
                    message: format!("invalid Yaml document separator: {rest}"),
                });
            }
            if offset > start {
                out.push(Chunk {
                    first_line: start_line,
                    start,
                    text: &text[start..offset],
                });
            }
            start = offset + line.len();
            start_line = line_no + 1;
        }
        offset += line.len();
    }
    if text.len() > start {
        out.push(Chunk {
            first_line: start_line,
            start,
            text: &text[start..],
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<(usize, &str)> {
        chunks(text)
            .expect("splits")
            .into_iter()
            .map(|c| (c.first_line, c.text))
            .collect()
    }

    #[test]
    fn separators_split_and_empty_stretches_are_not_documents() {
        assert_eq!(
            split("---\na: 1\n---\n--- # c\n# only a comment\n---\nb: 2"),
            [(2, "a: 1\n"), (5, "# only a comment\n"), (7, "b: 2")]
        );
    }

    #[test]
    fn a_separator_needs_the_start_of_a_line() {
        assert_eq!(split("a: |\n  ---\nb: 1\n"), [(1, "a: |\n  ---\nb: 1\n")]);
    }

    #[test]
    fn content_after_a_separator_is_refused_as_kubectl_does() {
        let e = chunks("a: 1\n--- {b: 2}\n").expect_err("refused");
        assert_eq!(e.line, 2);
        assert_eq!(e.message, "invalid Yaml document separator: {b: 2}");
    }

    #[test]
    fn the_content_line_skips_blank_and_comment_lines() {
        let c = chunks("---\n\n# c\n  spec: 1\n").expect("splits")[0];
        assert_eq!(c.content_line(), 4);
    }
}
