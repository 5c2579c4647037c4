//! serde's `rename_all` rules, applied to field and variant names exactly as serde applies them.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    pub const ALL: [(&'static str, RenameRule); 8] = [
        ("lowercase", RenameRule::Lower),
        ("UPPERCASE", RenameRule::Upper),
        ("PascalCase", RenameRule::Pascal),
        ("camelCase", RenameRule::Camel),
        ("snake_case", RenameRule::Snake),
        ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
        ("kebab-case", RenameRule::Kebab),
        ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
    ];

    pub fn from_str(s: &str) -> Option<RenameRule> {
        Self::ALL.iter().find(|(n, _)| *n == s).map(|(_, r)| *r)
    }

    /// A variant name (PascalCase in Rust) under this rule.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            RenameRule::Pascal => variant.to_owned(),
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Camel => variant[..1].to_ascii_lowercase() + &variant[1..],
            RenameRule::Snake => {
                let mut snake = String::new();
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            RenameRule::ScreamingSnake => RenameRule::Snake
                .apply_to_variant(variant)
                .to_ascii_uppercase(),
            RenameRule::Kebab => RenameRule::Snake
                .apply_to_variant(variant)
                .replace('_', "-"),
            RenameRule::ScreamingKebab => RenameRule::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }

    /// A field name (snake_case in Rust) under this rule.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.apply_to_field(field);
                match pascal.chars().next() {
                    Some(first) => {
                        first.to_ascii_lowercase().to_string() + &pascal[first.len_utf8()..]
                    }
                    None => pascal,
                }
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => RenameRule::ScreamingSnake
                .apply_to_field(field)
                .replace('_', "-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RenameRule::*;

    #[test]
    fn fields_follow_serde() {
        assert_eq!(Camel.apply_to_field("min_replicas"), "minReplicas");
        assert_eq!(Pascal.apply_to_field("min_replicas"), "MinReplicas");
        assert_eq!(Kebab.apply_to_field("min_replicas"), "min-replicas");
        assert_eq!(ScreamingSnake.apply_to_field("a_b"), "A_B");
        assert_eq!(Camel.apply_to_field("_x"), "x");
    }

    #[test]
    fn variants_follow_serde() {
        assert_eq!(Camel.apply_to_variant("TcpUdp"), "tcpUdp");
        assert_eq!(Snake.apply_to_variant("TcpUdp"), "tcp_udp");
        assert_eq!(ScreamingKebab.apply_to_variant("TcpUdp"), "TCP-UDP");
        assert_eq!(Lower.apply_to_variant("TCP"), "tcp");
    }
}
