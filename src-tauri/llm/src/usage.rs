//! What model calls used and cost: one row per call, summed for `GET /api/usage`. Prices and
//! context windows come from `prices.json`, shipped with the app as data.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use chrono::Duration;
use serde::{Deserialize, Serialize};

use sentient_core::clock::SharedClock;
use sentient_core::store::{Store, StoreError};

#[derive(Debug, Deserialize)]
struct PriceFile {
    models: BTreeMap<String, Price>,
}

/// A model's price per million tokens and how much it reads at once.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub context: u32,
}

fn prices() -> &'static BTreeMap<String, Price> {
    static PRICES: OnceLock<BTreeMap<String, Price>> = OnceLock::new();
    PRICES.get_or_init(|| {
        serde_json::from_str::<PriceFile>(include_str!("prices.json"))
            .map(|f| f.models)
            .unwrap_or_default()
    })
}

pub fn price(model: &str) -> Option<Price> {
    prices().get(model).copied()
}

/// Tokens and dollars spent on cloud models by a run that has limits (a swarm's helpers, a
/// subagent); models on this computer don't count, and an unknown price adds nothing.
#[derive(Debug, Default)]
pub struct CloudSpend {
    tokens: std::sync::atomic::AtomicU64,
    /// Micro-dollars, so it can be added to without a lock.
    micro_dollars: std::sync::atomic::AtomicU64,
}

impl CloudSpend {
    /// Counts one model call.
    pub fn add(&self, model: &str, usage: &crate::types::Usage) {
        use std::sync::atomic::Ordering;
        if crate::model_ref::is_local(model) {
            return;
        }
        let tokens = u64::from(usage.prompt_tokens) + u64::from(usage.completion_tokens);
        self.tokens.fetch_add(tokens, Ordering::SeqCst);
        let dollars =
            cost(model, false, usage.prompt_tokens, usage.completion_tokens).unwrap_or(0.0);
        self.micro_dollars
            .fetch_add((dollars * 1_000_000.0).round() as u64, Ordering::SeqCst);
    }

    pub fn tokens(&self) -> u64 {
        self.tokens.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn dollars(&self) -> f64 {
        self.micro_dollars.load(std::sync::atomic::Ordering::SeqCst) as f64 / 1_000_000.0
    }

    /// Which limit is used up (`tokens`, `cost_usd`), if one is; 0 means no limit.
    pub fn limit_reached(&self, max_tokens: u64, max_dollars: f64) -> Option<String> {
        if max_tokens > 0 && self.tokens() >= max_tokens {
            Some("tokens".to_owned())
        } else if max_dollars > 0.0 && self.dollars() >= max_dollars {
            Some("cost_usd".to_owned())
        } else {
            None
        }
    }
}

/// What a call cost in dollars: 0 for local models, `None` when the price is unknown.
pub fn cost(model: &str, local: bool, prompt_tokens: u32, completion_tokens: u32) -> Option<f64> {
    if local {
        return Some(0.0);
    }
    let p = price(model)?;
    Some(
        (f64::from(prompt_tokens) * p.input + f64::from(completion_tokens) * p.output)
            / 1_000_000.0,
    )
}

#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct TokenTotals {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ModelUsage {
    pub model: String,
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    pub calls: u32,
    /// Dollars, for the calls whose price is known.
    pub cost_usd: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SourceUsage {
    pub source: String,
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    pub calls: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct DayUsage {
    pub day: String,
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
}

/// `GET /api/usage`.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct UsageReport {
    pub totals: TokenTotals,
    pub by_model: Vec<ModelUsage>,
    pub by_source: Vec<SourceUsage>,
    pub by_day: Vec<DayUsage>,
}

/// The usage ledger; cheap to clone.
#[derive(Debug, Clone)]
pub struct UsageLedger {
    store: Store,
    clock: SharedClock,
}

fn to_u32(n: i64) -> u32 {
    u32::try_from(n.max(0)).unwrap_or(u32::MAX)
}

impl UsageLedger {
    pub fn new(store: Store, clock: SharedClock) -> Self {
        Self { store, clock }
    }

    pub async fn record(
        &self,
        model: &str,
        source: &str,
        prompt_tokens: u32,
        completion_tokens: u32,
        cost_usd: Option<f64>,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO model_usage (at, model, source, prompt_tokens, completion_tokens, cost_usd)
             VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(self.clock.now().to_rfc3339())
        .bind(model)
        .bind(source)
        .bind(i64::from(prompt_tokens))
        .bind(i64::from(completion_tokens))
        .bind(cost_usd)
        .execute(self.store.pool())
        .await?;
        Ok(())
    }

    /// Sums over the last `days` days (1 to 365).
    pub async fn report(&self, days: u32) -> Result<UsageReport, StoreError> {
        let since = (self.clock.now() - Duration::days(i64::from(days.clamp(1, 365)))).to_rfc3339();
        let pool = self.store.pool();
        let (prompt, completion): (i64, i64) = sqlx::query_as(
            "SELECT COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0) FROM model_usage WHERE at >= ?",
        )
        .bind(&since)
        .fetch_one(pool)
        .await?;
        let by_model: Vec<(String, i64, i64, i64, f64)> = sqlx::query_as(
            "SELECT model, SUM(prompt_tokens), SUM(completion_tokens), COUNT(*), COALESCE(SUM(cost_usd), 0.0)
             FROM model_usage WHERE at >= ? GROUP BY model ORDER BY SUM(prompt_tokens + completion_tokens) DESC, model",
        )
        .bind(&since)
        .fetch_all(pool)
        .await?;
        let by_source: Vec<(String, i64, i64, i64)> = sqlx::query_as(
            "SELECT source, SUM(prompt_tokens), SUM(completion_tokens), COUNT(*)
             FROM model_usage WHERE at >= ? GROUP BY source ORDER BY SUM(prompt_tokens + completion_tokens) DESC, source",
        )
        .bind(&since)
        .fetch_all(pool)
        .await?;
        let by_day: Vec<(String, i64, i64)> = sqlx::query_as(
            "SELECT substr(at, 1, 10) AS day, SUM(prompt_tokens), SUM(completion_tokens)
             FROM model_usage WHERE at >= ? GROUP BY day ORDER BY day",
        )
        .bind(&since)
        .fetch_all(pool)
        .await?;
        Ok(UsageReport {
            totals: TokenTotals {
                prompt_tokens: to_u32(prompt),
                completion_tokens: to_u32(completion),
            },
            by_model: by_model
                .into_iter()
                .map(|(model, p, c, n, cost)| ModelUsage {
                    model,
                    prompt_tokens: to_u32(p),
                    completion_tokens: to_u32(c),
                    calls: to_u32(n),
                    cost_usd: cost,
                })
                .collect(),
            by_source: by_source
                .into_iter()
                .map(|(source, p, c, n)| SourceUsage {
                    source,
                    prompt_tokens: to_u32(p),
                    completion_tokens: to_u32(c),
                    calls: to_u32(n),
                })
                .collect(),
            by_day: by_day
                .into_iter()
                .map(|(day, p, c)| DayUsage {
                    day,
                    prompt_tokens: to_u32(p),
                    completion_tokens: to_u32(c),
                })
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use chrono::Utc;

    use super::*;
    use sentient_core::clock::ManualClock;

    #[test]
    fn costs_use_the_shipped_prices_and_local_is_free() {
        let c = cost("anthropic/claude-haiku-4-5", false, 1_000_000, 100_000).expect("known");
        assert!((c - 1.5).abs() < 1e-9);
        assert_eq!(cost("ollama_chat/qwen3:8b", true, 5000, 500), Some(0.0));
        assert_eq!(cost("openai/unknown-model", false, 5, 5), None);
        assert_eq!(
            price("anthropic/claude-sonnet-5").map(|p| p.context),
            Some(200_000)
        );
    }

    #[tokio::test]
    async fn report_sums_by_model_source_and_day_within_the_window() {
        let dir = tempfile::tempdir().expect("tempdir");
        let clock = ManualClock::new(Utc::now() - Duration::days(40));
        let shared: SharedClock = Arc::new(clock.clone());
        let store = Store::open(&dir.path().join("s.db"), shared.clone())
            .await
            .expect("store");
        let ledger = UsageLedger::new(store, shared);
        ledger
            .record("openai/gpt-5-mini", "chat", 999, 1, Some(0.1))
            .await
            .expect("old");
        clock.set(Utc::now() - Duration::days(1));
        ledger
            .record("openai/gpt-5-mini", "chat", 100, 10, Some(0.5))
            .await
            .expect("r");
        clock.set(Utc::now());
        ledger
            .record("openai/gpt-5-mini", "task", 50, 5, Some(0.25))
            .await
            .expect("r");
        ledger
            .record("ollama_chat/qwen3:8b", "chat", 10, 1, Some(0.0))
            .await
            .expect("r");
        let report = ledger.report(30).await.expect("report");
        assert_eq!(
            report.totals,
            TokenTotals {
                prompt_tokens: 160,
                completion_tokens: 16
            }
        );
        assert_eq!(report.by_model[0].model, "openai/gpt-5-mini");
        assert_eq!(report.by_model[0].calls, 2);
        assert!((report.by_model[0].cost_usd - 0.75).abs() < 1e-9);
        let chat = report
            .by_source
            .iter()
            .find(|s| s.source == "chat")
            .expect("chat");
        assert_eq!((chat.prompt_tokens, chat.calls), (110, 2));
        assert_eq!(report.by_day.len(), 2);
    }
}
