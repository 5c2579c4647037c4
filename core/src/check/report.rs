//! What a check reports: its issues rendered as cel-go does, the help, the verdict.

use super::{CheckError, Checked, HELP_LEN, ISSUE_LEN, MAX_ISSUES, Target};

/// One type-check issue: where, and cel-go's message.
pub struct Issue {
    /// Offset in code points.
    pub offset: u32,
    /// The message (without the `ERROR: <input>:L:C:` prefix).
    pub message: crate::msg::Buf<ISSUE_LEN>,
}

/// The outcome of [`check`](super::check()): issues, help, whether `oldSelf` is used, the output
/// type.
pub struct Report {
    /// The issues, in the order found.
    pub issues: [Issue; MAX_ISSUES],
    /// How many issues were kept.
    pub kept: usize,
    /// How many issues there were in total.
    pub total: usize,
    /// crd-cel's hints (`help: did you mean ...`), one per line.
    pub help: crate::msg::Buf<HELP_LEN>,
    /// A construct the checker does not support (checked fails closed).
    pub unsupported: Option<&'static str>,
    /// The node has no CEL type (no `type`, e.g. a bare preserve-unknown-fields node): the
    /// apiserver rejects every rule on it (3.1 step 4).
    pub untyped_node: bool,
    /// The expression has the type its target requires (bool or string).
    pub right_type: bool,
    /// `oldSelf` is referenced.
    pub uses_old_self: bool,
    /// The apiserver's static cost estimate of one evaluation (cel-go `EstimateCost` with the
    /// Kubernetes estimator), when the expression was accepted.
    pub cost: Option<crate::cost::Range>,
    /// The expression type-checked: any issues are the AST validators' (cel-go runs them, and
    /// the literal validators of [`crate::literals`] beside them, only then).
    pub type_checked: bool,
    /// The expression reads a node whose schema is known only when it is generated
    /// ([`crate::model::Type::Unknown`], typed `dyn` here): the verdict, the output type and
    /// the cost are left to a check against the generated schema.
    pub deferred: bool,
}

impl Report {
    /// Whether the expression was accepted.
    pub const fn is_ok(&self) -> bool {
        self.total == 0 && self.unsupported.is_none() && !self.untyped_node && self.right_type
    }

    /// Renders the issues as cel-go's `ToDisplayString` (sorted by position).
    pub const fn render<const N: usize>(&self, source: &str, out: &mut crate::msg::Buf<N>) {
        // Selection sort by offset, stable: few issues.
        let mut order = [0usize; MAX_ISSUES];
        let mut i = 0;
        while i < self.kept {
            order[i] = i;
            i += 1;
        }
        let mut a = 0;
        while a < self.kept {
            let mut b = a + 1;
            while b < self.kept {
                let oa = self.issues[order[a]].offset;
                let ob = self.issues[order[b]].offset;
                if ob < oa {
                    let t = order[a];
                    order[a] = order[b];
                    order[b] = t;
                }
                b += 1;
            }
            a += 1;
        }
        let mut k = 0;
        while k < self.kept {
            if k > 0 {
                out.push("\n");
            }
            let issue = &self.issues[order[k]];
            render_issue(source, issue.offset, issue.message.as_str(), out);
            k += 1;
        }
        if self.total > self.kept {
            out.push("\n");
            out.push_u64((self.total - self.kept) as u64);
            out.push(" more errors were truncated");
        }
    }

    /// The issues rendered as cel-go does, followed by nothing else (help is separate).
    pub fn issues_text(&self, source: &str) -> String {
        let mut out = crate::msg::Buf::<{ MAX_ISSUES * (ISSUE_LEN + 2 * 1024) }>::new();
        self.render(source, &mut out);
        out.as_str().to_owned()
    }

    pub(super) fn into_result(self, source: &str, target: Target) -> Result<Checked, CheckError> {
        if self.untyped_node {
            return Err(CheckError::UntypedNode);
        }
        if let Some(what) = self.unsupported {
            return Err(CheckError::Unsupported {
                target,
                what: what.to_owned(),
            });
        }
        if self.deferred {
            // Only models built from Rust types have unknown nodes; a schema read from JSON
            // never does.
            return Err(CheckError::Unsupported {
                target,
                what: "a node whose schema is known only when it is generated".to_owned(),
            });
        }
        if self.total > 0 {
            return Err(CheckError::Compilation {
                target,
                issues: self.issues_text(source),
            });
        }
        if !self.right_type {
            return Err(CheckError::WrongType { target });
        }
        Ok(Checked {
            uses_old_self: self.uses_old_self,
            max_cost: match self.cost {
                Some(c) => c.max,
                None => 0,
            },
        })
    }
}

/// Writes one issue: `ERROR: <input>:L:C: message`, the source line and a caret.
pub const fn render_issue<const N: usize>(
    source: &str,
    offset: u32,
    message: &str,
    out: &mut crate::msg::Buf<N>,
) {
    let b = source.as_bytes();
    // Find the line and column of the code point at `offset`.
    let mut i = 0;
    let mut cp = 0u32;
    let mut line = 1u64;
    let mut line_start = 0usize;
    let len_i = b.len();
    while i < len_i && cp < offset {
        if b[i] == b'\n' {
            line += 1;
            line_start = i + 1;
        }
        i += utf8_width(b[i]);
        cp += 1;
    }
    // Column: code points from the line start.
    let mut col = 1u64;
    let mut j = line_start;
    while j < i {
        j += utf8_width(b[j]);
        col += 1;
    }
    out.push("ERROR: <input>:");
    out.push_u64(line);
    out.push(":");
    out.push_u64(col);
    out.push(": ");
    out.push(message);
    let mut end = line_start;
    let mut chars = 0;
    let len_end = b.len();
    while end < len_end && b[end] != b'\n' {
        end += utf8_width(b[end]);
        chars += 1;
    }
    if chars > 16384 {
        return;
    }
    let mut line_end = end;
    if line_end > line_start && b[line_end - 1] == b'\r' {
        line_end -= 1;
    }
    out.push("\n | ");
    let (_, tail) = b.split_at(line_start);
    let (text, _) = tail.split_at(line_end - line_start);
    let mut k = 0;
    let len_k = text.len();
    while k < len_k {
        let w = utf8_width(text[k]);
        if text[k] == b'\t' {
            out.push(" ");
        } else {
            let (_, t) = text.split_at(k);
            let (ch, _) = t.split_at(w);
            out.push_bytes(ch);
        }
        k += w;
    }
    out.push("\n | ");
    let mut k = 0;
    let mut c = 1;
    let len_k = text.len();
    while k < len_k {
        let w = utf8_width(text[k]);
        if c >= col {
            out.push(if w > 1 { "＾" } else { "^" });
            return;
        }
        out.push(if w > 1 { "．" } else { "." });
        k += w;
        c += 1;
    }
    out.push("^");
}

const fn utf8_width(first: u8) -> usize {
    if first < 0x80 {
        1
    } else if first >= 0xF0 {
        4
    } else if first >= 0xE0 {
        3
    } else {
        2
    }
}
