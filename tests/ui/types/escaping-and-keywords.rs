use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
// 'my-field' is reached as my__dash__field; the raw name does not parse as a field.
#[cel(rule = "self.my__dash__field && self.namespace == 'x' && self.my_field")]
struct Spec {
    #[serde(rename = "my-field")]
    my_field: bool,
    namespace: String,
}

fn main() {}
