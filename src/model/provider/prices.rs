//! What a turn cost, from one table of published per-token prices.

use serde_json::{Value, json};

use crate::model::provider::spec::ProviderKind;

/// US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub cached_input: f64,
    pub output: f64,
}

const fn price(input: f64, cached_input: f64, output: f64) -> Price {
    Price { input, cached_input, output }
}

/// Standard (not batch, not priority, short-context) prices in US dollars per million
/// tokens: input, cached input, output. From the providers' published price lists
/// (developers.openai.com/api/docs/pricing, docs.x.ai/docs/models), as read in November
/// 2026, partly through copies of those pages; a provider may change its prices at any time,
/// so `cost` is an estimate. A model not in the table gets no cost, never a guess.
pub const PRICES: &[(ProviderKind, &str, Price)] = &[
    (ProviderKind::OpenAi, "gpt-4o", price(2.50, 1.25, 10.00)),
    (ProviderKind::OpenAi, "gpt-4o-mini", price(0.15, 0.075, 0.60)),
    (ProviderKind::OpenAi, "gpt-4.1", price(2.00, 0.50, 8.00)),
    (ProviderKind::OpenAi, "gpt-4.1-mini", price(0.40, 0.10, 1.60)),
    (ProviderKind::OpenAi, "gpt-4.1-nano", price(0.10, 0.025, 0.40)),
    (ProviderKind::OpenAi, "o3", price(2.00, 0.50, 8.00)),
    (ProviderKind::OpenAi, "o3-mini", price(1.10, 0.55, 4.40)),
    (ProviderKind::OpenAi, "o4-mini", price(1.10, 0.275, 4.40)),
    (ProviderKind::OpenAi, "gpt-5", price(1.25, 0.125, 10.00)),
    (ProviderKind::OpenAi, "gpt-5-mini", price(0.25, 0.025, 2.00)),
    (ProviderKind::OpenAi, "gpt-5-nano", price(0.05, 0.005, 0.40)),
    (ProviderKind::OpenAi, "gpt-5.1", price(1.25, 0.125, 10.00)),
    (ProviderKind::OpenAi, "gpt-5.2", price(1.75, 0.175, 14.00)),
    (ProviderKind::OpenAi, "gpt-5.4", price(2.50, 0.25, 15.00)),
    (ProviderKind::OpenAi, "gpt-5.4-mini", price(0.75, 0.075, 4.50)),
    (ProviderKind::OpenAi, "gpt-5.4-nano", price(0.20, 0.02, 1.25)),
    (ProviderKind::OpenAi, "gpt-5.5", price(5.00, 0.50, 30.00)),
    (ProviderKind::Xai, "grok-4", price(3.00, 0.75, 15.00)),
    (ProviderKind::Xai, "grok-3", price(3.00, 0.75, 15.00)),
    (ProviderKind::Xai, "grok-3-mini", price(0.30, 0.075, 0.50)),
    (ProviderKind::Xai, "grok-4-fast-reasoning", price(0.20, 0.05, 0.50)),
    (ProviderKind::Xai, "grok-4-fast-non-reasoning", price(0.20, 0.05, 0.50)),
    (ProviderKind::Xai, "grok-4-1-fast-reasoning", price(0.20, 0.05, 0.50)),
    (ProviderKind::Xai, "grok-4-1-fast-non-reasoning", price(0.20, 0.05, 0.50)),
    (ProviderKind::Xai, "grok-code-fast-1", price(0.20, 0.02, 1.50)),
    (ProviderKind::Xai, "grok-4.20-0309-reasoning", price(2.00, 0.20, 6.00)),
    (ProviderKind::Xai, "grok-4.20-0309-non-reasoning", price(2.00, 0.20, 6.00)),
];

/// The table entry for `model` of `kind`: its exact name, else (OpenAI and xAI only) the
/// longest entry the name extends with a date or `-latest` (`gpt-4o-2024-08-06`, `grok-4-0709`,
/// `grok-3-latest`). Any other suffix is a different model with its own price (`o3-pro`,
/// `gpt-4o-audio-preview`, `grok-3-mini-fast`), so it is not priced as its stem.
pub fn price_of(kind: ProviderKind, model: &str) -> Option<(&'static str, Price)> {
    let exact = PRICES.iter().find(|(entry_kind, name, _)| {
        *name == model && (*entry_kind == kind || kind == ProviderKind::OpenAiCompatible)
    });
    if let Some((_, name, price)) = exact {
        return Some((name, *price));
    }
    if kind == ProviderKind::OpenAiCompatible {
        return None;
    }
    PRICES
        .iter()
        .filter(|(entry_kind, name, _)| {
            *entry_kind == kind
                && model.strip_prefix(name).and_then(|rest| rest.strip_prefix('-')).is_some_and(is_version_tag)
        })
        .max_by_key(|(_, name, _)| name.len())
        .map(|(_, name, price)| (*name, *price))
}

/// `2024-08-06`, `0709` or `latest`: a dated snapshot of the same model.
fn is_version_tag(tag: &str) -> bool {
    let digits = |part: &str, count: usize| part.len() == count && part.bytes().all(|b| b.is_ascii_digit());
    let parts: Vec<&str> = tag.split('-').collect();
    match parts.as_slice() {
        ["latest"] => true,
        [date] => digits(date, 4),
        [year, month, day] => digits(year, 4) && digits(month, 2) && digits(day, 2),
        _ => false,
    }
}

/// `turn.completed`'s `cost` (`{ totalUsd, model }`) for tokens read fresh, read from the
/// cache and written.
pub fn cost(entry: &str, price: Price, (input, cached, output): (u64, u64, u64)) -> Value {
    let dollars =
        (input as f64 * price.input + cached as f64 * price.cached_input + output as f64 * price.output) / 1_000_000.0;
    // Rounded to a billionth of a dollar, so sums print as prices, not as float noise.
    let total = (dollars * 1e9).round() / 1e9;
    json!({ "totalUsd": total, "model": entry })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: ProviderKind, model: &str) -> Option<&'static str> {
        price_of(kind, model).map(|(name, _)| name)
    }

    #[test]
    fn dated_names_match_their_model_and_other_suffixes_do_not() {
        assert_eq!(entry(ProviderKind::OpenAi, "gpt-4o"), Some("gpt-4o"));
        assert_eq!(entry(ProviderKind::OpenAi, "gpt-4o-2024-08-06"), Some("gpt-4o"));
        assert_eq!(entry(ProviderKind::OpenAi, "gpt-4o-mini-2024-07-18"), Some("gpt-4o-mini"));
        assert_eq!(entry(ProviderKind::OpenAi, "gpt-4.1-nano-2025-04-14"), Some("gpt-4.1-nano"));
        assert_eq!(entry(ProviderKind::Xai, "grok-4-0709"), Some("grok-4"));
        assert_eq!(entry(ProviderKind::Xai, "grok-3-mini-latest"), Some("grok-3-mini"));
        assert_eq!(entry(ProviderKind::OpenAi, "o3-pro"), None);
        assert_eq!(entry(ProviderKind::OpenAi, "gpt-4o-audio-preview"), None);
        assert_eq!(entry(ProviderKind::Xai, "grok-3-mini-fast"), None);
        assert_eq!(entry(ProviderKind::OpenAi, "gpt-4o2"), None);
        assert_eq!(entry(ProviderKind::Xai, "gpt-4o"), None, "prices are per provider");
    }

    #[test]
    fn compatible_servers_are_priced_only_by_an_exact_name() {
        assert_eq!(entry(ProviderKind::OpenAiCompatible, "gpt-4o-mini"), Some("gpt-4o-mini"));
        assert_eq!(entry(ProviderKind::OpenAiCompatible, "grok-3"), Some("grok-3"));
        assert_eq!(entry(ProviderKind::OpenAiCompatible, "gpt-4o-2024-08-06"), None);
        assert_eq!(entry(ProviderKind::OpenAiCompatible, "llama3.1:8b"), None);
    }

    #[test]
    fn cost_counts_fresh_cached_and_output_tokens() {
        let (name, price) = price_of(ProviderKind::OpenAi, "gpt-4o").unwrap();
        assert_eq!(cost(name, price, (1_000, 1_000, 100)), json!({ "totalUsd": 0.00475, "model": "gpt-4o" }));
        assert_eq!(cost(name, price, (0, 0, 0))["totalUsd"], 0.0);
    }

    #[test]
    fn every_entry_is_unique_and_sensible() {
        for (i, (kind, name, price)) in PRICES.iter().enumerate() {
            assert!(PRICES[..i].iter().all(|(k, n, _)| !(k == kind && n == name)), "{name} twice");
            assert!(price.cached_input <= price.input && price.input > 0.0 && price.output > 0.0, "{name}");
        }
    }
}
