//! Shared fixtures: benchmark stores from the shared data, and a tiny hand-made corpus.

use std::sync::Arc;

use toolsmith_catalog::ApiId;
use toolsmith_retrieve::{Corpus, CorpusDoc};

pub(crate) fn doc(
    api: &str,
    category: &str,
    name: &str,
    description: &str,
    params: &str,
) -> CorpusDoc {
    let id: ApiId = api.parse().unwrap();
    CorpusDoc {
        tool: id.tool().clone(),
        api: id,
        category: category.into(),
        fields: [
            String::new(),
            name.into(),
            String::new(),
            description.into(),
            params.into(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ],
    }
}

/// `doc` with synthetic user requests (one a line in [`toolsmith_retrieve::Field::Queries`]).
pub(crate) fn with_views(mut doc: CorpusDoc, views: &[&str]) -> CorpusDoc {
    doc.fields[7] = views.join("\n");
    doc
}

/// Five APIs of three tools in two categories.
pub(crate) fn tiny() -> Arc<Corpus> {
    Arc::new(Corpus::from_docs([
        doc(
            "movies/search_movie",
            "Media",
            "searchMovie GET /search/movie",
            "Search for movies by their title.",
            "query: the movie title",
        ),
        doc(
            "movies/movie_credits",
            "Media",
            "movie_credits GET /movie/{movie_id}/credits",
            "Get the cast and crew of a movie.",
            "movie_id",
        ),
        doc(
            "movies/search_person",
            "Media",
            "searchPerson GET /search/person",
            "Search for people: actors, directors.",
            "query: a name",
        ),
        doc(
            "weather/forecast",
            "Weather",
            "forecast",
            "Weather forecast for a city for the next days.",
            "city; days",
        ),
        doc(
            "weather/current",
            "Weather",
            "currentWeather",
            "Current temperature and wind in a city.",
            "city",
        ),
    ]))
}
