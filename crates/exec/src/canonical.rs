//! Canonical JSON (object keys sorted, no whitespace; from `toolsmith-plumbing`) and a stable
//! 64-bit hash: the keys of the response cache and the seeds of the simulator.

/// Canonical JSON: the one shared function, so cache keys match every other crate's.
pub use toolsmith_plumbing::json::canonical_json;

/// FNV-1a over the bytes of each part, with a separator between parts: a
/// hash that is the same on every platform and in every release.
pub(crate) fn stable_hash(parts: &[&[u8]]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash = OFFSET;
    for part in parts {
        for byte in *part {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(PRIME);
        }
        hash ^= 0xff;
        hash = hash.wrapping_mul(PRIME);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_separates_parts() {
        assert_ne!(stable_hash(&[b"ab", b"c"]), stable_hash(&[b"a", b"bc"]));
        assert_eq!(stable_hash(&[b"x"]), stable_hash(&[b"x"]));
    }
}
