//! A message stream's shape (its pattern and capacity); the types live in the schema
//! (`overhead_schema::variants::channel_shape`), under both the runtimes and the readers.

pub use overhead_schema::variants::channel_shape::*;
