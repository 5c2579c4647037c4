//! How the const checks' messages name the rule they are about: ``CEL rule #<i> on `<place>` ``,
//! the index among the rules of the type or field `place`, as the derive counts them.

use crate::check::Target;
use crate::msg::Buf;

/// Appends ``CEL rule #<index> on `<place>` `` (``messageExpression of CEL rule ...`` for
/// `Target::MessageExpression`).
pub(crate) const fn push_rule_name<const N: usize>(
    m: &mut Buf<N>,
    target: Target,
    index: usize,
    place: &str,
) {
    m.push(match target {
        Target::Rule => "CEL rule #",
        Target::MessageExpression => "messageExpression of CEL rule #",
    });
    m.push_u64(index as u64);
    m.push(" on `");
    m.push(place);
    m.push("`");
}
