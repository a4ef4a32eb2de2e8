//! An experiment's typed result and the record's `extra` map (docs/ARCHITECTURE.md "Experiments").
//!
//! The record keeps an experiment's side numbers as a flat map from name (unit in the name) to value, so
//! that processes can be merged key by key (each value's median over the processes that reported it) and an
//! older record still reads. Each experiment that has side numbers declares them as one struct deriving
//! `Serialize` and `Deserialize` beside the experiment, whose field names are the keys; the experiment writes
//! it ([`super::Outcome::with_result`]) and its report reads it back ([`super::PointRecord::result_as`]), so
//! writer and readers share one type and a renamed key fails to compile. Fields are numbers (`f64`, the
//! map's type) or `Option`s of them for keys that are sometimes absent; a `None` is left out of the map.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// `result`'s fields as `extra` entries: each number under its field name, `None` fields (and non-finite
/// numbers, which JSON cannot hold) left out.
///
/// Panics: `result` is not a flat struct of numbers and options of numbers (a programming error that every
/// test of the experiment hits).
pub fn to_extra<T: Serialize>(result: &T) -> BTreeMap<String, f64> {
    let value = serde_json::to_value(result).expect("an experiment's result serialises");
    let serde_json::Value::Object(fields) = value else { panic!("an experiment's result is a struct") };
    fields
        .into_iter()
        .filter_map(|(k, v)| match v {
            serde_json::Value::Null => None,
            serde_json::Value::Number(n) => Some((k, n.as_f64().expect("a JSON number is an f64"))),
            other => panic!("result field {k} is not a number: {other}"),
        })
        .collect()
}

/// `extra` read as the result type `T`. Keys `T` does not have (another experiment's, or the reference loop's
/// timings every point carries) are ignored.
///
/// Errors: a key that `T` requires is missing (a record of an older build, or of another experiment).
pub fn from_extra<T: DeserializeOwned>(extra: &BTreeMap<String, f64>) -> anyhow::Result<T> {
    let fields: serde_json::Map<String, serde_json::Value> =
        extra.iter().filter_map(|(k, v)| Some((k.clone(), serde_json::Number::from_f64(*v)?.into()))).collect();
    Ok(serde_json::from_value(serde_json::Value::Object(fields))?)
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Result {
        jain_index: f64,
        max_over_min: Option<f64>,
    }

    #[test]
    fn a_result_goes_into_the_map_by_field_name_and_comes_back() {
        let r = Result { jain_index: 0.9, max_over_min: None };
        let extra = to_extra(&r);
        assert_eq!(extra, [("jain_index".to_string(), 0.9)].into());
        assert_eq!(from_extra::<Result>(&extra).unwrap(), r);
        let mut more = to_extra(&Result { jain_index: 1.0, max_over_min: Some(2.0) });
        more.insert("reference_loop_ns_before".into(), 0.3);
        assert_eq!(from_extra::<Result>(&more).unwrap(), Result { jain_index: 1.0, max_over_min: Some(2.0) });
        assert!(from_extra::<Result>(&BTreeMap::new()).is_err(), "a required key is missing");
    }
}
