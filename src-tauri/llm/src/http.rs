//! An HTTP client made on first use. Building a client reads the system's whole CA bundle
//! (about 40 ms in a debug build); start-up should not pay that before anything calls out.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// A shared `reqwest::Client` (one connection pool) built the first time it is asked for.
#[derive(Debug, Clone, Default)]
pub struct LazyClient {
    cell: Arc<OnceLock<reqwest::Client>>,
    user_agent: Option<&'static str>,
}

impl LazyClient {
    /// A client with a 10 s connect timeout and, when given, this user agent.
    pub fn new(user_agent: Option<&'static str>) -> Self {
        Self {
            cell: Arc::new(OnceLock::new()),
            user_agent,
        }
    }

    /// Whether a call has needed the client yet (start-up must leave it unbuilt).
    pub fn is_built(&self) -> bool {
        self.cell.get().is_some()
    }

    /// The client, built now if no call has needed it yet.
    pub fn get(&self) -> &reqwest::Client {
        self.cell.get_or_init(|| {
            let builder = reqwest::Client::builder().connect_timeout(Duration::from_secs(10));
            let builder = match self.user_agent {
                Some(agent) => builder.user_agent(agent),
                None => builder,
            };
            builder.build().unwrap_or_default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_one_client_built_on_first_use() {
        let lazy = LazyClient::new(Some("sentient-test"));
        let copy = lazy.clone();
        assert!(!lazy.is_built(), "nothing is built before a call needs it");
        let first: *const reqwest::Client = copy.get();
        assert!(
            std::ptr::eq(first, lazy.get()),
            "one client, one connection pool"
        );
        assert!(lazy.is_built() && copy.is_built());
    }
}
