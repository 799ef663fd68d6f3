//! Pass rate: the share of queries whose run a judge accepts, under ToolEval's rules (ToolLLM,
//! Qin et al. 2024; `eval_pass_rate.py`) and under AnyTool's stricter ones (Du et al. 2024,
//! Eq. 2 and `check_solved.py`).
//!
//! The decisions are pure functions of typed verdicts; [`tooleval_sample`] and
//! [`anytool_passes_judged`] only add the calls to a [`Judge`]. A query's outcome is a `bool`
//! (or `None` when it has no samples); [`Rate::of`](crate::Rate::of) turns them into a rate.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::judge::{AnswerStatus, Judge, JudgeCase, TaskSolvability};
use toolsmith_solve::Finish;

use crate::run::RunRecord;

/// How many judgements each protocol takes per query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PassRateSettings {
    /// ToolEval judges each run this many times and takes the per-query vote
    /// (`evaluate_times`, default 4 in `eval_pass_rate.py`).
    pub tooleval_samples: usize,
    /// AnyTool asks the judge this many times and needs a majority of Solved
    /// (`check_solved_toolbench`, 3 votes).
    pub anytool_votes: usize,
    /// Whether the samples and votes of one judge run read one verdict per question or each
    /// draw their own.
    pub draws: VoteDraws,
}

/// How ToolEval's samples and AnyTool's votes within one judge run get their verdicts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VoteDraws {
    /// Each question (the answer's status, the task's solvability) is asked once per judge
    /// run and every sample and vote reads that verdict: at most 3 judge calls per query
    /// (answer, trajectory, solvability). A deterministic judge (temperature 0, a person)
    /// answers a repeated question the same, so repeating it only costs. Judge runs still
    /// differ: each asks anew with its own seed.
    #[default]
    Shared,
    /// Sample or vote `i` is its own draw, sent with its own sampling seed, as ToolEval's and
    /// AnyTool's code sample their judge at temperature 0.2 (up to 4 answer and 4 solvability
    /// questions per query, each with its trajectory look).
    Independent,
}

impl PassRateSettings {
    /// The protocols as their reference code runs them: independent samples and votes.
    pub const PAPER: Self = Self {
        tooleval_samples: 4,
        anytool_votes: 3,
        draws: VoteDraws::Independent,
    };
}

/// The papers' counts, with one verdict per question and judge run ([`VoteDraws::Shared`]).
impl Default for PassRateSettings {
    fn default() -> Self {
        Self {
            draws: VoteDraws::Shared,
            ..Self::PAPER
        }
    }
}

/// The outcome of one ToolEval sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleVerdict {
    /// The sample passes.
    Passed,
    /// It fails.
    Failed,
    /// The table leaves it open; ToolEval flips a fair coin.
    Undecided,
}

/// ToolEval's decision table over the two verdicts of one sample (`is_passed`):
///
/// | answer \ task | Solvable | Unsolvable | Unsure |
/// |---|---|---|---|
/// | Solved | pass | pass | pass |
/// | Unsolved | fail | pass | undecided |
/// | Unsure | undecided | pass | undecided |
///
/// A Solved answer passes without the task being assessed (ToolEval treats it as Solvable). An
/// answer that does not solve an unsolvable task passes: a refusal is the right answer there.
pub fn tooleval_decision(answer: AnswerStatus, task: TaskSolvability) -> SampleVerdict {
    use AnswerStatus as A;
    use TaskSolvability as T;
    match (answer, task) {
        (A::Solved, _) | (A::Unsolved | A::Unsure, T::Unsolvable) => SampleVerdict::Passed,
        (A::Unsolved, T::Solvable) => SampleVerdict::Failed,
        (A::Unsolved, T::Unsure) | (A::Unsure, T::Solvable | T::Unsure) => SampleVerdict::Undecided,
    }
}

/// What ToolEval decides about a run before any judge is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screening {
    /// The run never called `Finish` (budget, step limit, error): the sample fails.
    Failed,
    /// It gave up, or answered with empty text: the answer is Unsolved without asking.
    Unsolved,
    /// It answered: ask the judge.
    Judge,
}

/// ToolEval's screening of a run: a run whose last step is not a `Finish` call fails; a
/// give-up, an empty answer or one that mentions `give_up_and_restart` is Unsolved without an
/// LLM call (the task may still be judged unsolvable, and then the sample passes).
pub fn tooleval_screen(run: &RunRecord) -> Screening {
    let gives_up = |a: &str| a.contains("give_up_and_restart");
    match run.finish {
        Finish::Answered if run.answered() && !run.answer.as_deref().is_some_and(gives_up) => {
            Screening::Judge
        }
        Finish::Answered | Finish::GaveUp => Screening::Unsolved,
        Finish::BudgetExhausted | Finish::StepLimit | Finish::Error => Screening::Failed,
    }
}

/// One ToolEval sample of a run: screening, the answer status (asked only when the run
/// answered), the task's solvability (asked only when the answer is not Solved), then
/// [`tooleval_decision`].
pub async fn tooleval_sample<J: Judge + ?Sized>(
    judge: &J,
    case: &JudgeCase<'_>,
) -> Result<SampleVerdict> {
    let answer = match tooleval_screen(case.run) {
        Screening::Failed => return Ok(SampleVerdict::Failed),
        Screening::Unsolved => AnswerStatus::Unsolved,
        Screening::Judge => judge.answer_status(case).await?,
    };
    let task = if answer == AnswerStatus::Solved {
        TaskSolvability::Solvable
    } else {
        judge.task_solvability(case.query, case.offered).await?
    };
    Ok(tooleval_decision(answer, task))
}

/// ToolEval's per-query vote over its samples: each undecided sample becomes a pass when
/// `coin()` says so (ToolEval flips a fair coin), then the query passes when it has no more
/// failed than passed samples (a tie passes). `None` for a query without samples: ToolEval
/// leaves such a query out of the denominator.
pub fn tooleval_query_passes(
    samples: &[SampleVerdict],
    coin: &mut dyn FnMut() -> bool,
) -> Option<bool> {
    if samples.is_empty() {
        return None;
    }
    let (mut passed, mut failed) = (0usize, 0usize);
    for sample in samples {
        tally(*sample, coin, &mut passed, &mut failed);
    }
    Some(failed <= passed)
}

/// Words whose presence (case-sensitive, anywhere) makes AnyTool count an answer as Unsolved
/// without asking the judge (`main.py`'s exclusion list).
pub const ANYTOOL_REFUSAL_WORDS: [&str; 11] = [
    "sorry",
    "apologize",
    "apology",
    "unfortunately",
    "couldn't",
    "could not",
    "can't",
    "cannot",
    "unable",
    "regret",
    "not successfully",
];

/// Counts one ToolEval sample as passed or failed; an undecided one is settled by `coin`, as
/// ToolEval does.
fn tally(
    verdict: SampleVerdict,
    coin: &mut dyn FnMut() -> bool,
    passed: &mut usize,
    failed: &mut usize,
) {
    let pass = match verdict {
        SampleVerdict::Passed => true,
        SampleVerdict::Failed => false,
        SampleVerdict::Undecided => coin(),
    };
    if pass {
        *passed += 1;
    } else {
        *failed += 1;
    }
}

/// Whether an answer contains one of [`ANYTOOL_REFUSAL_WORDS`].
pub fn anytool_refusal(answer: &str) -> bool {
    ANYTOOL_REFUSAL_WORDS.iter().any(|w| answer.contains(w))
}

/// AnyTool's vote: a query passes only when the judge said Solved in at least half of the
/// votes (`passed >= failed`; with its 3 votes, 2 or 3 Solved). Unsolved and Unsure both count
/// against, and unlike ToolEval nothing passes for being unsolvable. No votes: not passed.
pub fn anytool_passes(votes: &[AnswerStatus]) -> bool {
    let solved = votes.iter().filter(|v| **v == AnswerStatus::Solved).count();
    !votes.is_empty() && solved >= votes.len() - solved
}

/// AnyTool's judgement of a run: no answer, an empty one or a refusal fails without asking;
/// otherwise the judge votes `votes` times and [`anytool_passes`] decides. The denominator
/// (AnyTool leaves out queries labelled unsolvable by hand) is the caller's choice of queries.
pub async fn anytool_passes_judged<J: Judge + ?Sized>(
    judge: &J,
    case: &JudgeCase<'_>,
    votes: usize,
) -> Result<bool> {
    let refused = case.run.answer.as_deref().is_none_or(anytool_refusal);
    if !case.run.answered() || refused {
        return Ok(false);
    }
    let mut verdicts = Vec::with_capacity(votes);
    for _ in 0..votes {
        verdicts.push(judge.answer_status(case).await?);
    }
    Ok(anytool_passes(&verdicts))
}

/// The judge's verdicts on one case, each asked once and shared by both protocols: ToolEval's
/// sample `i` and AnyTool's vote `i` read the same answer-status draw (they are the same
/// question), and ToolEval's solvability questions are drawn in order. Under
/// [`VoteDraws::Shared`] every sample and vote reads draw 0; under
/// [`VoteDraws::Independent`] sample or vote `i` reads draw `i`. A draw is asked only when a
/// protocol reaches it, so stopping early saves the rest.
pub struct Draws<'a, J: ?Sized> {
    judge: &'a J,
    case: JudgeCase<'a>,
    mode: VoteDraws,
    answers: Vec<AnswerStatus>,
    solvability: Vec<TaskSolvability>,
}

impl<'a, J: Judge + ?Sized> Draws<'a, J> {
    /// No draws yet on `case`.
    pub fn new(judge: &'a J, case: JudgeCase<'a>, mode: VoteDraws) -> Self {
        Self {
            judge,
            case,
            mode,
            answers: Vec::new(),
            solvability: Vec::new(),
        }
    }

    /// The draw that sample or vote `i` reads.
    fn draw(&self, i: usize) -> usize {
        match self.mode {
            VoteDraws::Shared => 0,
            VoteDraws::Independent => i,
        }
    }

    /// Answer-status draw for sample or vote `i`, asking the judge for it (and any before it)
    /// if not yet drawn.
    pub async fn answer(&mut self, i: usize) -> Result<AnswerStatus> {
        let i = self.draw(i);
        while self.answers.len() <= i {
            let verdict = self.judge.answer_status(&self.case).await?;
            self.answers.push(verdict);
        }
        Ok(self.answers[i])
    }

    /// Solvability draw for the `i`-th solvability question, asking the judge for it (and any
    /// before it) if not yet drawn.
    pub async fn solvability(&mut self, i: usize) -> Result<TaskSolvability> {
        let i = self.draw(i);
        while self.solvability.len() <= i {
            let verdict = self
                .judge
                .task_solvability(self.case.query, self.case.offered)
                .await?;
            self.solvability.push(verdict);
        }
        Ok(self.solvability[i])
    }
}

/// ToolEval's judgement of a query with `samples` samples, stopping as soon as the vote is
/// decided (no remaining sample can change it: [`tooleval_query_passes`] over the samples
/// taken gives the same outcome as over all of them). Undecided samples are settled by
/// `coin()` in order, as [`tooleval_query_passes`] does. Returns the samples taken and the vote
/// (`None` for no samples).
pub async fn tooleval_query_judged<J: Judge + ?Sized>(
    draws: &mut Draws<'_, J>,
    samples: usize,
    coin: &mut dyn FnMut() -> bool,
) -> Result<(Vec<SampleVerdict>, Option<bool>)> {
    let mut taken = Vec::with_capacity(samples);
    let (mut passed, mut failed, mut solvability_asked) = (0usize, 0usize, 0usize);
    for i in 0..samples {
        let remaining = samples - i;
        if failed + remaining <= passed || failed > passed + remaining {
            break;
        }
        let answer = match tooleval_screen(draws.case.run) {
            Screening::Failed => {
                taken.push(SampleVerdict::Failed);
                failed += 1;
                continue;
            }
            Screening::Unsolved => AnswerStatus::Unsolved,
            Screening::Judge => draws.answer(i).await?,
        };
        let task = if answer == AnswerStatus::Solved {
            TaskSolvability::Solvable
        } else {
            solvability_asked += 1;
            draws.solvability(solvability_asked - 1).await?
        };
        let verdict = tooleval_decision(answer, task);
        tally(verdict, coin, &mut passed, &mut failed);
        taken.push(verdict);
    }
    let vote = (samples > 0).then_some(failed <= passed);
    Ok((taken, vote))
}

/// AnyTool's judgement with at most `votes` votes, stopping at a majority: as
/// [`anytool_passes_judged`], but the votes are [`Draws`] shared with ToolEval and no vote is
/// asked once the outcome is settled (with 3 votes, 2 that agree settle it).
pub async fn anytool_query_judged<J: Judge + ?Sized>(
    draws: &mut Draws<'_, J>,
    votes: usize,
) -> Result<bool> {
    let run = draws.case.run;
    if !run.answered() || run.answer.as_deref().is_none_or(anytool_refusal) || votes == 0 {
        return Ok(false);
    }
    let needed = votes - votes / 2;
    let (mut solved, mut other) = (0usize, 0usize);
    for i in 0..votes {
        if solved >= needed || other > votes - needed {
            break;
        }
        if draws.answer(i).await? == AnswerStatus::Solved {
            solved += 1;
        } else {
            other += 1;
        }
    }
    Ok(solved >= needed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rate;
    use crate::testing::{JudgeRequest, ScriptedJudge};

    use AnswerStatus::{Solved, Unsolved, Unsure as AUnsure};
    use SampleVerdict::{Failed, Passed, Undecided};
    use TaskSolvability::{Solvable, Unsolvable, Unsure as TUnsure};

    #[test]
    fn the_decision_table_cell_by_cell() {
        let table = [
            (Solved, Solvable, Passed),
            (Solved, Unsolvable, Passed),
            (Solved, TUnsure, Passed),
            (Unsolved, Solvable, Failed),
            (Unsolved, Unsolvable, Passed),
            (Unsolved, TUnsure, Undecided),
            (AUnsure, Solvable, Undecided),
            (AUnsure, Unsolvable, Passed),
            (AUnsure, TUnsure, Undecided),
        ];
        for (answer, task, expected) in table {
            assert_eq!(
                tooleval_decision(answer, task),
                expected,
                "{answer:?} {task:?}"
            );
        }
    }

    #[test]
    fn per_query_vote_ties_pass_and_the_coin_settles_undecided() {
        let mut heads = || true;
        let mut tails = || false;
        // 2 passed, 2 failed: a tie passes.
        assert_eq!(
            tooleval_query_passes(&[Passed, Failed, Passed, Failed], &mut tails),
            Some(true)
        );
        // 1 passed, 2 failed, 1 undecided: passes only if the coin makes it 2-2.
        let samples = [Passed, Failed, Failed, Undecided];
        assert_eq!(tooleval_query_passes(&samples, &mut heads), Some(true));
        assert_eq!(tooleval_query_passes(&samples, &mut tails), Some(false));
        // The coin is flipped once per undecided sample.
        let mut flips = 0;
        let mut counting = || {
            flips += 1;
            flips == 1
        };
        assert_eq!(
            tooleval_query_passes(&[Undecided, Undecided, Failed], &mut counting),
            Some(false)
        );
        assert_eq!(flips, 2);
        // No samples: left out of the denominator.
        assert_eq!(tooleval_query_passes(&[], &mut heads), None);
        let rate = Rate::of(
            [vec![Passed], vec![], vec![Failed]]
                .iter()
                .filter_map(|s| tooleval_query_passes(s, &mut tails)),
        );
        assert_eq!((rate.hits, rate.total), (1, 2));
    }

    #[test]
    fn anytool_needs_a_solved_majority() {
        assert!(anytool_passes(&[Solved, Solved, Unsolved]));
        assert!(anytool_passes(&[Solved, Solved, Solved]));
        assert!(!anytool_passes(&[Solved, AUnsure, Unsolved]));
        assert!(!anytool_passes(&[AUnsure, AUnsure, AUnsure]));
        assert!(!anytool_passes(&[]));
        assert!(anytool_refusal("Sadly I cannot find it"));
        assert!(anytool_refusal("I'm sorry"));
        // Case-sensitive, as in AnyTool.
        assert!(!anytool_refusal("Sorry, here it is: 42"));
        assert!(!anytool_refusal("The answer is 42"));
    }

    fn run(finish: Finish, answer: Option<&str>) -> RunRecord {
        RunRecord {
            calls: Vec::new(),
            finish,
            answer: answer.map(str::to_owned),
        }
    }

    fn case(run: &RunRecord) -> JudgeCase<'_> {
        JudgeCase {
            query: "q",
            offered: &[],
            run,
        }
    }

    #[test]
    fn screening_before_the_judge() {
        assert_eq!(
            tooleval_screen(&run(Finish::Answered, Some("42"))),
            Screening::Judge
        );
        assert_eq!(
            tooleval_screen(&run(Finish::Answered, Some(""))),
            Screening::Unsolved
        );
        assert_eq!(
            tooleval_screen(&run(Finish::Answered, Some("give_up_and_restart"))),
            Screening::Unsolved
        );
        assert_eq!(
            tooleval_screen(&run(Finish::GaveUp, None)),
            Screening::Unsolved
        );
        for never in [Finish::BudgetExhausted, Finish::StepLimit, Finish::Error] {
            assert_eq!(tooleval_screen(&run(never, None)), Screening::Failed);
        }
    }

    #[tokio::test]
    async fn tooleval_samples_ask_only_what_the_table_needs() -> Result<()> {
        let answered = run(Finish::Answered, Some("42"));
        let gave_up = run(Finish::GaveUp, None);
        let never = run(Finish::StepLimit, None);
        let judge = ScriptedJudge::new()
            .answers([Solved, Unsolved])
            .solvability([Unsolvable, Solvable]);
        // Solved: no solvability question.
        assert_eq!(tooleval_sample(&judge, &case(&answered)).await?, Passed);
        // Unsolved on an unsolvable task passes.
        assert_eq!(tooleval_sample(&judge, &case(&answered)).await?, Passed);
        // A give-up is Unsolved without an answer question; the task is solvable: fails.
        assert_eq!(tooleval_sample(&judge, &case(&gave_up)).await?, Failed);
        // A run that never finished fails without any question.
        assert_eq!(tooleval_sample(&judge, &case(&never)).await?, Failed);
        let asked: Vec<JudgeRequest> = judge.requests().into_iter().map(|(r, _)| r).collect();
        assert_eq!(
            asked,
            [
                JudgeRequest::AnswerStatus,
                JudgeRequest::AnswerStatus,
                JudgeRequest::TaskSolvability,
                JudgeRequest::TaskSolvability,
            ]
        );
        Ok(())
    }

    #[tokio::test]
    async fn anytool_votes_three_times_unless_the_answer_refuses() -> Result<()> {
        let votes = PassRateSettings::PAPER.anytool_votes;
        let judge =
            ScriptedJudge::new().answers([Solved, Unsolved, Solved, AUnsure, Solved, AUnsure]);
        let answered = run(Finish::Answered, Some("42"));
        assert!(anytool_passes_judged(&judge, &case(&answered), votes).await?);
        assert!(!anytool_passes_judged(&judge, &case(&answered), votes).await?);
        assert_eq!(judge.requests().len(), 6);
        // A refusal, a give-up and a run that never answered fail without asking.
        let refusal = run(Finish::Answered, Some("The API is down, so I cannot tell"));
        assert!(!anytool_passes_judged(&judge, &case(&refusal), votes).await?);
        assert!(!anytool_passes_judged(&judge, &case(&run(Finish::GaveUp, None)), votes).await?);
        let out_of_budget = run(Finish::BudgetExhausted, None);
        assert!(!anytool_passes_judged(&judge, &case(&out_of_budget), votes).await?);
        // AnyTool's check is case-sensitive: a capitalised refusal word reaches the judge.
        let capitalised = run(Finish::Answered, Some("Unfortunately it is 42"));
        assert!(anytool_refusal("unfortunately") && !anytool_refusal("Unfortunately it is 42"));
        assert_eq!(judge.requests().len(), 6);
        let judge = judge.answers([Unsolved, Unsolved, Unsolved]);
        assert!(!anytool_passes_judged(&judge, &case(&capitalised), votes).await?);
        assert_eq!(judge.requests().len(), 9);
        Ok(())
    }

    #[tokio::test]
    async fn an_exhausted_script_is_an_error() {
        let judge = ScriptedJudge::new();
        let answered = run(Finish::Answered, Some("42"));
        let err = tooleval_sample(&judge, &case(&answered)).await;
        assert!(err.is_err_and(|e| e.to_string().contains("no AnswerStatus verdict")));
    }

    #[test]
    fn the_default_has_the_papers_counts_and_shares_draws() {
        let default = PassRateSettings::default();
        assert_eq!(
            (default.tooleval_samples, default.anytool_votes),
            (4, 3),
            "the papers' counts"
        );
        assert_eq!(default.draws, VoteDraws::Shared);
        assert_eq!(PassRateSettings::PAPER.draws, VoteDraws::Independent);
    }

    #[tokio::test]
    async fn shared_draws_ask_each_question_once_per_judge_run() -> Result<()> {
        let settings = PassRateSettings::default();
        let mut heads = || true;
        // Unsure then unsolvable: every ToolEval sample is the same pass; AnyTool fails on the
        // one Unsure verdict; 1 answer and 1 solvability question in all (were 4 + 4).
        let judge = ScriptedJudge::new()
            .answers([AUnsure])
            .solvability([Unsolvable]);
        let answered = run(Finish::Answered, Some("42"));
        let mut draws = Draws::new(&judge, case(&answered), settings.draws);
        let (samples, vote) =
            tooleval_query_judged(&mut draws, settings.tooleval_samples, &mut heads).await?;
        assert_eq!((samples, vote), (vec![Passed, Passed], Some(true)));
        assert!(!anytool_query_judged(&mut draws, settings.anytool_votes).await?);
        assert_eq!(judge.requests().len(), 2);
        // Undecided samples still get a coin each, from one pair of verdicts.
        let judge = ScriptedJudge::new()
            .answers([Unsolved])
            .solvability([TUnsure]);
        let mut flips = 0;
        let mut coin = || {
            flips += 1;
            false
        };
        let mut draws = Draws::new(&judge, case(&answered), settings.draws);
        let (samples, vote) =
            tooleval_query_judged(&mut draws, settings.tooleval_samples, &mut coin).await?;
        assert_eq!((samples.len(), vote), (3, Some(false)));
        assert_eq!(flips, 3);
        assert_eq!(judge.requests().len(), 2);
        Ok(())
    }

    #[tokio::test]
    async fn both_protocols_share_draws_and_stop_once_decided() -> Result<()> {
        let settings = PassRateSettings::PAPER;
        let mut heads = || true;
        // A solved answer: 2 answer questions settle ToolEval's 4 samples and AnyTool's 3
        // votes (not 4 + 3), and no solvability question.
        let judge = ScriptedJudge::new().answers([Solved, Solved]);
        let answered = run(Finish::Answered, Some("42"));
        let mut draws = Draws::new(&judge, case(&answered), settings.draws);
        let (samples, vote) =
            tooleval_query_judged(&mut draws, settings.tooleval_samples, &mut heads).await?;
        assert_eq!((samples, vote), (vec![Passed, Passed], Some(true)));
        assert!(anytool_query_judged(&mut draws, settings.anytool_votes).await?);
        assert_eq!(judge.requests().len(), 2);
        // A give-up on a solvable task: 3 failed samples settle it; 3 solvability questions.
        let judge = ScriptedJudge::new().solvability([Solvable, Solvable, Solvable]);
        let gave_up = run(Finish::GaveUp, None);
        let mut draws = Draws::new(&judge, case(&gave_up), settings.draws);
        let (samples, vote) =
            tooleval_query_judged(&mut draws, settings.tooleval_samples, &mut heads).await?;
        assert_eq!((samples.len(), vote), (3, Some(false)));
        assert!(!anytool_query_judged(&mut draws, settings.anytool_votes).await?);
        assert_eq!(judge.requests().len(), 3);
        // Split verdicts need the third vote, and the fourth sample reads a fourth draw.
        let judge = ScriptedJudge::new()
            .answers([Solved, Unsolved, Unsolved, Solved])
            .solvability([Solvable, Solvable]);
        let mut draws = Draws::new(&judge, case(&answered), settings.draws);
        let (samples, vote) =
            tooleval_query_judged(&mut draws, settings.tooleval_samples, &mut heads).await?;
        assert_eq!(samples, [Passed, Failed, Failed, Passed]);
        assert_eq!(vote, Some(true));
        assert!(!anytool_query_judged(&mut draws, settings.anytool_votes).await?);
        assert_eq!(judge.requests().len(), 6);
        Ok(())
    }
}
