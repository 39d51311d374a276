//! "Did you mean": the known name a mistyped one most likely meant, if one is close enough.

/// How alike two names must be (Jaro-Winkler) for one to be suggested for the other.
const CLOSE_ENOUGH: f64 = 0.8;

/// The candidate closest to `word`, if any is close enough.
pub fn nearest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    candidates
        .into_iter()
        .map(|candidate| (strsim::jaro_winkler(word, candidate), candidate))
        .filter(|&(score, _)| score >= CLOSE_ENOUGH)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_closest_near_miss_or_none() {
        assert_eq!(super::nearest("triag", ["triage", "audit/usage"]), Some("triage"));
        assert_eq!(super::nearest("zzz", ["triage"]), None);
    }
}
