//! Refusing deep flow nesting before the YAML parser sees it. libyaml's scanner keeps the
//! possible simple keys of every open flow collection and walks them for each token, so a
//! document nested in flow style (`{a: {a: ...`) 100,000 levels deep takes minutes to reach
//! the parser's recursion limit. This scan is linear and stops at the same limit.

/// The nesting the parsers accept: `serde_json`'s and `serde_norway`'s recursion limit (the
/// apiserver's decoders accept 10,000 levels; no Kubernetes object comes near either).
pub(super) const MAX_DEPTH: usize = 128;

/// Where the nesting passed [`MAX_DEPTH`] (1-based, columns in characters, as libyaml counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TooDeep {
    pub(super) line: usize,
    pub(super) column: usize,
}

/// Scans a YAML document for flow collections (`[`, `{`) nested deeper than [`MAX_DEPTH`],
/// skipping quoted scalars, block scalars, comments and the brackets inside plain scalars.
pub(super) fn check_flow_depth(text: &str) -> Result<(), TooDeep> {
    let b = text.as_bytes();
    // Each level opens at a `[` or `{`: with no more of them than the limit, no nesting passes
    // it, and counting bytes is far cheaper than the scan (CRD manifests have a handful).
    if b.iter().filter(|&&c| c == b'[' || c == b'{').count() <= MAX_DEPTH {
        return Ok(());
    }
    let n = b.len();
    let (mut i, mut line, mut line_start) = (0usize, 1usize, 0usize);
    let mut depth = 0usize;
    // At a place where a node may start (after an indicator, a line start, `[`, `{`, `,`).
    let mut node_start = true;
    let mut at_line_start = true;
    let mut line_indent = 0usize;
    // Inside a block scalar whose header is on a line with this indentation.
    let mut block_scalar: Option<usize> = None;
    let separated = |j: usize| j >= n || matches!(b[j], b' ' | b'\t' | b'\r' | b'\n');
    while i < n {
        if at_line_start {
            let s = i;
            while i < n && b[i] == b' ' {
                i += 1;
            }
            let indent = i - s;
            let blank = i >= n || matches!(b[i], b'\n' | b'\r');
            if let Some(parent) = block_scalar {
                if blank || indent > parent {
                    i = skip_line(b, i);
                    if i < n {
                        i += 1;
                        line += 1;
                        line_start = i;
                    }
                    continue;
                }
                block_scalar = None;
            }
            line_indent = indent;
            at_line_start = false;
            if depth == 0 {
                node_start = true;
            }
            continue;
        }
        let c = b[i];
        match c {
            b'\n' => {
                i += 1;
                line += 1;
                line_start = i;
                at_line_start = true;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' if i == line_start || matches!(b[i - 1], b' ' | b'\t') => {
                i = skip_line(b, i);
                continue;
            }
            b'"' | b'\'' if node_start => {
                i = skip_quoted(b, i, &mut line, &mut line_start);
                node_start = false;
                continue;
            }
            _ => {}
        }
        if depth > 0 {
            match c {
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Err(too_deep(text, line, line_start, i));
                    }
                    node_start = true;
                }
                b']' | b'}' => {
                    depth -= 1;
                    node_start = false;
                }
                b',' | b':' | b'?' => node_start = true,
                _ => node_start = false,
            }
            i += 1;
            continue;
        }
        if node_start {
            match c {
                b'[' | b'{' => {
                    depth = 1;
                    node_start = true;
                    i += 1;
                }
                b'-' | b'?' | b':' if separated(i + 1) => i += 1,
                b'&' | b'!' => {
                    while !separated(i) {
                        i += 1;
                    }
                }
                b'|' | b'>' => {
                    block_scalar = Some(line_indent);
                    i = skip_line(b, i);
                }
                _ => {
                    node_start = false;
                    i += 1;
                }
            }
        } else {
            // In a plain scalar or after a node: `: ` starts the value of a key.
            if c == b':' && separated(i + 1) {
                node_start = true;
            }
            i += 1;
        }
    }
    Ok(())
}

/// The index of the end of the line (`\n` or the end of the text).
fn skip_line(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'\n' {
        i += 1;
    }
    i
}

/// Skips a quoted scalar starting at `i` (`"` with backslash escapes, `'` with `''`), which may
/// span lines; returns the index after it.
fn skip_quoted(b: &[u8], start: usize, line: &mut usize, line_start: &mut usize) -> usize {
    let quote = b[start];
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' if quote == b'"' => i += 1,
            b'\'' if quote == b'\'' && b.get(i + 1) == Some(&b'\'') => i += 1,
            q if q == quote => return i + 1,
            b'\n' => {
                *line += 1;
                *line_start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    i
}

fn too_deep(text: &str, line: usize, line_start: usize, i: usize) -> TooDeep {
    TooDeep {
        line,
        column: text[line_start..i].chars().count() + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(open: &str, close: &str, depth: usize) -> String {
        format!("{}1{}", open.repeat(depth), close.repeat(depth))
    }

    #[test]
    fn nesting_up_to_the_limit_passes_and_one_more_is_located() {
        assert_eq!(check_flow_depth(&nested("[", "]", MAX_DEPTH)), Ok(()));
        let e = check_flow_depth(&format!("a:\n  b: {}", nested("{x: ", "}", MAX_DEPTH + 1)))
            .expect_err("too deep");
        // The opening brace of level 129, on line 2 after `  b: ` and 128 `{x: `.
        assert_eq!(
            e,
            TooDeep {
                line: 2,
                column: 6 + 4 * MAX_DEPTH
            }
        );
    }

    #[test]
    fn brackets_in_scalars_and_comments_do_not_count() {
        let deep = "[".repeat(MAX_DEPTH + 1);
        let cases = [
            format!("a: \"{deep}\"\n"),
            format!("a: '{deep} '' {deep}'\n"),
            format!("a: x{deep}\n"),
            format!("a: 1 # {deep}\n"),
            format!("a: |\n  {deep}\n\n  {deep}\nb: 1\n"),
            format!("- >-\n   {deep}\n- 2\n"),
            format!("a: [\"{deep}\", '{deep}']\n"),
        ];
        for text in &cases {
            assert_eq!(check_flow_depth(text), Ok(()), "{text}");
        }
    }

    #[test]
    fn flow_nesting_is_found_after_block_structure_and_across_lines() {
        let deep = format!("{}\n{}", "[".repeat(64), "[".repeat(65));
        for text in [
            format!("a:\n  - b: {deep}"),
            format!("- &x !!seq {deep}"),
            format!("k: |\n  text\nv: {deep}"),
            format!("\"quoted key\": {deep}"),
        ] {
            assert!(check_flow_depth(&text).is_err(), "{text}");
        }
    }

    #[test]
    fn a_hundred_thousand_levels_end_at_the_limit() {
        let text = nested("{a: ", "}", 100_000);
        assert_eq!(check_flow_depth(&text).expect_err("too deep").line, 1);
    }
}
