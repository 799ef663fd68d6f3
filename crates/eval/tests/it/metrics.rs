//! NDCG@k and Recall@k against values worked out by hand.

use toolsmith_eval::{RetrievalScores, dcg_at_k, ndcg_at_k, ndcg_curve, recall_at_k};

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

// Query 1: gold {b, d} at ranks 2 and 4.
//   DCG@3 = 1/log2(3) = 0.630930; ideal@3 = 1 + 1/log2(3) = 1.630930 -> NDCG@3 = 0.386853
//   DCG@5 = 1/log2(3) + 1/log2(5) = 1.061606 -> NDCG@5 = 0.650921
// Query 2: gold {x} at rank 1: every NDCG and recall is 1.
// Query 3: gold {s, t} not retrieved: all 0.
const Q1: [&str; 4] = ["a", "b", "c", "d"];
const G1: [&str; 2] = ["b", "d"];
const Q2: [&str; 3] = ["x", "y", "z"];
const G2: [&str; 1] = ["x"];
const Q3: [&str; 3] = ["p", "q", "r"];
const G3: [&str; 2] = ["s", "t"];

#[test]
fn ndcg_of_each_query_by_hand() {
    close(dcg_at_k(&Q1, &G1, 3), 1.0 / 3f64.log2());
    close(ndcg_at_k(&Q1, &G1, 1), 0.0);
    close(ndcg_at_k(&Q1, &G1, 3), 0.386_852_807_234_541_6);
    close(ndcg_at_k(&Q1, &G1, 5), 0.650_920_929_807_132_6);
    close(ndcg_at_k(&Q2, &G2, 1), 1.0);
    close(ndcg_at_k(&Q2, &G2, 10), 1.0);
    close(ndcg_at_k(&Q3, &G3, 10), 0.0);
}

#[test]
fn recall_of_each_query_by_hand() {
    close(recall_at_k(&Q1, &G1, 3), 0.5);
    close(recall_at_k(&Q1, &G1, 4), 1.0);
    close(recall_at_k(&Q2, &G2, 1), 1.0);
    close(recall_at_k(&Q3, &G3, 10), 0.0);
}

#[test]
fn mean_over_the_three_queries() {
    let scores =
        RetrievalScores::mean([(&Q1[..], &G1[..]), (&Q2[..], &G2[..]), (&Q3[..], &G3[..])]);
    assert_eq!(scores.queries, 3);
    close(scores.ndcg_1, 1.0 / 3.0);
    close(scores.ndcg_3, 0.462_284_269_078_180_54);
    close(scores.ndcg_5, 0.550_306_976_602_377_5);
    close(scores.recall_5, 2.0 / 3.0);
    close(scores.recall_10, 2.0 / 3.0);
    close(scores.percent().ndcg_1, 100.0 / 3.0);
}

#[test]
fn ideal_dcg_is_capped_at_k_and_duplicates_count_once() {
    // Three gold items, k = 1: the ideal is one hit, so a hit at rank 1 is perfect.
    close(ndcg_at_k(&["a", "b"], &["a", "b", "c"], 1), 1.0);
    // A gold item repeated in the ranking or in the gold list counts once.
    close(ndcg_at_k(&["a", "a"], &["a", "a"], 2), 1.0);
    close(recall_at_k(&["a", "a"], &["a", "b"], 2), 0.5);
    // No gold: 0, not NaN.
    close(ndcg_at_k::<&str>(&["a"], &[], 5), 0.0);
    assert_eq!(RetrievalScores::mean::<&str>([]).queries, 0);
}

#[test]
fn the_ndcg_curve_is_the_mean_ndcg_at_every_k() {
    let runs = [(&Q1[..], &G1[..]), (&Q2[..], &G2[..]), (&Q3[..], &G3[..])];
    let curve = ndcg_curve(runs, 5);
    assert_eq!(curve.len(), 5);
    let scores = RetrievalScores::mean(runs);
    close(curve[0], scores.ndcg_1);
    close(curve[2], scores.ndcg_3);
    close(curve[4], scores.ndcg_5);
    // NDCG@2: query 1 has b at rank 2 of an ideal of two hits: (1/log2 3) / (1 + 1/log2 3).
    let q1 = (1.0 / 3f64.log2()) / (1.0 + 1.0 / 3f64.log2());
    close(curve[1], (q1 + 1.0) / 3.0);
    assert_eq!(ndcg_curve::<&str>([], 3), vec![0.0; 3]);
}
