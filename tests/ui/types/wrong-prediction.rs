// The derive checks a rule natively when it can predict the model of its node from the source,
// and the const item verifies the prediction against the real model. Here both predictions are
// wrong and would accept the rules: the real models (a `String` that is an integer, an `Item`
// from another module) must still reject them, with the const checker's messages.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

mod shadowing {
    use crd_cel::CelValidate;
    use serde::{Deserialize, Serialize};

    #[allow(non_camel_case_types, dead_code)]
    type String = i64;

    #[derive(CelValidate, Serialize, Deserialize)]
    #[cel(rule = "self.name.startsWith('a')")]
    pub struct Named {
        pub name: String,
    }
}

mod other {
    use crd_cel::CelValidate;
    use serde::{Deserialize, Serialize};

    #[derive(CelValidate, Serialize, Deserialize)]
    pub struct Item {
        pub key: i64,
    }
}

// Derived after `other::Item`: the name the derive remembers last.
#[derive(CelValidate, Serialize, Deserialize)]
pub struct Item {
    pub key: String,
}

mod user {
    use super::other::Item;
    use crd_cel::CelValidate;
    use serde::{Deserialize, Serialize};

    #[derive(CelValidate, Serialize, Deserialize)]
    #[cel(rule = "self.items.all(i, i.key.startsWith('a'))")]
    pub struct Spec {
        #[cel(max_items = 4)]
        pub items: Vec<Item>,
    }
}

fn main() {}
