//! Typed experiment parameters and a point's `key:value` pairs (docs/ARCHITECTURE.md "Experiments").
//!
//! Each experiment declares its parameters as one struct deriving `Serialize` and `Deserialize`; the plan
//! encodes it into the point's pairs in the struct's field order (so the Google Benchmark-style name keeps a
//! fixed key order) and the probe decodes it once, with one error text for every experiment. The pairs are
//! flat strings, so the encoding is the `application/x-www-form-urlencoded` data model: numbers and
//! unit enum variants (snake_case names) as text, `None` fields left out.

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::PointSpec;

/// The parameters of an experiment that has none of its own (a two-party point still gets `placement`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NoParams {}

/// The pairs of `params`, in field order; a `None` field is left out.
///
/// Panics: `params` is not a flat struct of numbers, strings, unit enum variants and options of them (a
/// programming error every test of the experiment's plan would hit).
pub fn encode<P: Serialize>(params: &P) -> Vec<(String, String)> {
    let text = serde_urlencoded::to_string(params).expect("experiment parameters are a flat struct of plain values");
    form_urlencoded::parse(text.as_bytes()).into_owned().collect()
}

/// `spec`'s parameters as `P`. Keys `P` does not have (such as `placement`, which the plan adds to
/// two-party points) are ignored.
///
/// Errors: a parameter is missing or its value is not what `P` takes, e.g.
/// `point sync.sem/runtime:os/op:x: unknown variant `x`, expected one of `p`, `v`, `pair`, `switch``.
pub fn decode<P: DeserializeOwned>(spec: &PointSpec) -> anyhow::Result<P> {
    let text = serde_urlencoded::to_string(&spec.params)?;
    serde_urlencoded::from_str(&text).map_err(|e| anyhow::anyhow!("point {}: {e}", spec.name()))
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        Shared,
        Distinct,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Params {
        variable: Kind,
        barrier: Option<String>,
        threads: usize,
    }

    fn spec(params: Vec<(String, String)>) -> PointSpec {
        PointSpec {
            experiment: "sync.faa".into(),
            runtime: "os".into(),
            params,
            cpus: vec![0],
            placement: None,
            hosts: Vec::new(),
        }
    }

    #[test]
    fn pairs_follow_the_field_order_and_come_back_as_they_went() {
        let params = Params { variable: Kind::Distinct, barrier: None, threads: 4 };
        let pairs = encode(&params);
        assert_eq!(pairs, [("variable".to_string(), "distinct".to_string()), ("threads".into(), "4".into())]);
        assert_eq!(spec(pairs.clone()).name(), "sync.faa/runtime:os/variable:distinct/threads:4");
        assert_eq!(decode::<Params>(&spec(pairs)).unwrap(), params);
    }

    #[test]
    fn a_bad_value_names_the_point_and_what_was_expected() {
        let bad = spec(vec![("variable".into(), "both".into()), ("threads".into(), "4".into())]);
        let err = decode::<Params>(&bad).unwrap_err().to_string();
        assert!(err.contains("sync.faa/runtime:os/variable:both/threads:4") && err.contains("shared"), "{err}");
        let missing = spec(vec![("variable".into(), "shared".into())]);
        assert!(decode::<Params>(&missing).unwrap_err().to_string().contains("threads"));
        let not_a_number = spec(vec![("variable".into(), "shared".into()), ("threads".into(), "four".into())]);
        assert!(decode::<Params>(&not_a_number).is_err());
    }
}
