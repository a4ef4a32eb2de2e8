//! The channel implementations a message point is named after; the type lives in the schema
//! (`overhead_schema::variants::channel_impl`), under both the runtimes and the readers.

pub use overhead_schema::variants::channel_impl::ChannelImpl;
