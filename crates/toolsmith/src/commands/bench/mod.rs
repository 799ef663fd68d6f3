//! `toolsmith bench retrieval`, `bench agreement`, `bench search-speed`, `bench embed` and
//! `bench serve`: the measurements of retrieval quality and of speed, one submodule each. (`bench run`, `list`,
//! `show` and `compare`, the solver benchmarks, are `bench_runs`.)

mod agreement;
mod embed;
mod retrieval;
mod serve_load;
mod speed;

pub(super) use self::agreement::run as agreement;
pub(super) use self::embed::run as embed;
pub(super) use self::retrieval::run as retrieval;
pub(super) use self::serve_load::run as serve_load;
pub(super) use self::speed::run as speed;
