//! One codec per vendor wire format: how a [`ChatRequest`](super::ChatRequest) is written and how
//! a streamed reply is read back into [`Chunk`](super::Chunk)s. Decoders are pure (fed one line
//! or event at a time) so every format is tested without a network.

pub mod anthropic;
pub mod ollama;
pub mod openai;
