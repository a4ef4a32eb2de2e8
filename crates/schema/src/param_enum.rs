//! `param_enum!`: a parameter enum's serde as its name (the record's `key:value` pairs and readers both
//! decode it).

/// Implements `Serialize` and `Deserialize` for a parameter enum that already has `ALL` (every value) and
/// `name()` (its parameter value): the value is its name; an unknown name is refused with the list of
/// names. For enums whose names are not serde's snake_case of the variant, or are used by reports too.
#[macro_export]
macro_rules! param_enum {
    ($t:ty) => {
        impl $crate::serde::Serialize for $t {
            fn serialize<S: $crate::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }
        impl<'de> $crate::serde::Deserialize<'de> for $t {
            fn deserialize<D: $crate::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <String as $crate::serde::Deserialize>::deserialize(d)?;
                <$t>::ALL.iter().copied().find(|v| v.name() == text).ok_or_else(|| {
                    let names: Vec<&str> = <$t>::ALL.iter().map(|v| v.name()).collect();
                    $crate::serde::de::Error::custom(format!("unknown value {text:?}, expected one of {names:?}"))
                })
            }
        }
    };
}
