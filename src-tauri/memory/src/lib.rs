//! Sentient's memory (contract section 7): facts about the person, found again by hybrid search
//! (sqlite-vec neighbours plus FTS5 words), the review inbox for what did not come from the
//! person's own words, summaries of past chats, and the notes files (SOUL.md, USER.md,
//! MEMORY.md and the daily notes). Depends on the core and the model layer only.

pub mod bit_cache;
pub mod bit_rows;
pub mod bits;
pub mod chat;
pub mod codes;
pub mod decide;
pub mod error;
pub mod import;
pub mod model;
pub mod requests;
pub mod search;
pub mod service;
pub mod store;
pub mod summaries;
pub mod tools;
pub mod workspace;

pub use error::MemoryError;
pub use model::{Memory, ReviewNote, WriteResult};
pub use service::{ListQuery, LocalDate, MemoryParts, MemoryService};
