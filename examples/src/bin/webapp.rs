//! The main job: prints the `WebApp` CRD manifest, then validates a few `WebApp` objects against
//! its rules the way the apiserver would, through both of crd-cel's roads (the Rust types'
//! `CelValidate`, and a `Validator` built from the printed manifest), which must agree.
//!
//! `cargo run -p crd-cel-examples --bin webapp`

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;

use crd_cel::validate::Endpoint;
use crd_cel::{CelValidate, Validator};
use crd_cel_examples::{Autoscaling, Port, Protocol, Tier, WebApp, WebAppSpec};
use kube::CustomResourceExt;

fn webapp(name: &str, spec: WebAppSpec) -> WebApp {
    let mut w = WebApp::new(name, spec);
    w.metadata.namespace = Some("default".into());
    w
}

fn spec() -> WebAppSpec {
    WebAppSpec {
        image: "shop:1.4.2".into(),
        replicas: 3,
        tier: Tier::Standard,
        ports: vec![Port {
            name: "http".into(),
            port: 8080,
            protocol: Protocol::Tcp,
        }],
        hostnames: BTreeSet::from(["shop.example.com".to_owned()]),
        labels: BTreeMap::from([("app".to_owned(), "shop".to_owned())]),
        autoscaling: None,
        resources: None,
    }
}

fn main() -> ExitCode {
    let crd = WebApp::crd();
    let yaml = match crd_cel::yaml::to_string(&crd) {
        Ok(y) => y,
        Err(e) => {
            eprintln!("webapp: cannot render the CRD: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "# The WebApp CRD, as generated from the Rust types (kubectl apply -f takes it as is):"
    );
    print!("{yaml}");

    let crd_json = match serde_json::to_value(&crd) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("webapp: cannot read the CRD back: {e}");
            return ExitCode::FAILURE;
        }
    };
    let manifest = match Validator::from_crd(&crd_json, Some("v1")) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("webapp: {e}");
            return ExitCode::FAILURE;
        }
    };

    let valid = webapp("shop", spec());
    let mut broken_spec = spec();
    broken_spec.image = "shop".into();
    broken_spec.replicas = 150;
    broken_spec.ports.push(Port {
        name: "metrics".into(),
        port: 70000,
        protocol: Protocol::Tcp,
    });
    broken_spec.autoscaling = Some(Autoscaling {
        min_replicas: 10,
        max_replicas: 2,
        target_cpu_percent: Some(120),
    });
    let broken = webapp("shop", broken_spec);
    let mut oversized_spec = spec();
    oversized_spec.replicas = 2000;
    oversized_spec.tier = Tier::Premium;
    let oversized = webapp("shop", oversized_spec);
    let mut premium_spec = spec();
    premium_spec.tier = Tier::Premium;
    let premium = webapp("shop", premium_spec);

    let cases: [(&str, &WebApp, Option<&WebApp>); 5] = [
        ("create a valid WebApp", &valid, None),
        ("create a WebApp that breaks five rules", &broken, None),
        (
            "create a WebApp over the schema's maximum (#[schemars(range)])",
            &oversized,
            None,
        ),
        (
            "update the tier (a transition rule)",
            &premium,
            Some(&valid),
        ),
        ("update an unchanged valid WebApp", &valid, Some(&valid)),
    ];
    println!("---");
    println!("# Validating objects against these rules, as the apiserver would:");
    let mut agree = true;
    for (what, new, old) in cases {
        let typed = match old {
            None => new.validate(),
            Some(old) => new.validate_update(old),
        };
        let (Ok(new_json), Ok(old_json)) = (
            serde_json::to_value(new),
            old.map(serde_json::to_value).transpose(),
        ) else {
            eprintln!("webapp: cannot serialize the object");
            return ExitCode::FAILURE;
        };
        let out = manifest.validate_request(&new_json, old_json.as_ref(), Endpoint::Resource);
        let from_manifest = if out.is_valid() {
            Ok(())
        } else {
            Err(out.errors)
        };
        let verdict = match &typed {
            Ok(()) => "valid".to_owned(),
            Err(e) => e.status_message("WebApp", "apps.example.com", "shop"),
        };
        println!("# {what}:\n#   {verdict}");
        if typed != from_manifest {
            agree = false;
            println!("#   but the manifest path says: {from_manifest:?}");
        }
    }
    if agree {
        println!("# The Rust types and the manifest agree on every object.");
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
