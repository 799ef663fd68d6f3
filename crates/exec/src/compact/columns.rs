//! Columns: the fields of a list's items (or of one object's sub-objects) named by their path,
//! ranked so that the items of a list grow alike. A column is added to every shown item before
//! a column of lower rank is added to any, and one that does not fit across all of them is
//! left out rather than given to some.

use serde_json::{Map, Value};

use super::core::{core_fields, has_identity, restates};
use super::fields::{
    Class, Context, identity_rank as identity_rank_of, is_count_holder, is_locator,
};
use super::least::{IDENTITY_CAP, ordered};
use super::qualify::{Qualifier, qualifier};

/// Object levels whose core identities count as an item's skeleton (a recently played item's
/// track, and that track's album and artists).
const CORE_DEPTH: usize = 2;

/// Deepest object level columns are taken from; deeper values are one rendered column.
const MAX_DEPTH: usize = 6;

/// Items of a nested list (a track's artists) that a column shows.
pub(super) const NESTED_ITEMS: usize = 3;

/// Share of the floor of shown items (see [`Column::floor`]) a qualifier saying the items'
/// role may not take away.
const ROLE_FLOOR_SHARE: (usize, usize) = (3, 4);

/// Share of the floor of shown items a field the request asks about may not take away: the
/// request ranks or filters the items on it, so an item shown without it says little (a
/// person's three crew credits, shown beside her cast credits in half the room, keep two
/// with their air dates rather than three without).
const ASKED_FLOOR_SHARE: (usize, usize) = (1, 2);

/// Longest string that counts as a short scalar (a date, a code, a short label).
pub(super) const SHORT_TEXT: usize = 40;

/// Characters a long text is first shown in, before it is shown whole.
pub(super) const LONG_TEXT_CAP: usize = 120;

/// Characters the snippets of a text the API exists to return grow to early (its core form
/// shows [`IDENTITY_CAP`] of them), then as a long text, before it is shown whole.
const SNIPPET_CAPS: [usize; 3] = [100, 120, 160];

/// Characters such a text grows to as a long text, before it is shown whole.
const LONG_SNIPPET_CAPS: [usize; 5] = [200, 240, 320, 480, 960];

/// Characters a value without identities (a list of codes, a map) is rendered in.
const OTHER_CAP: usize = 120;

/// Characters a link value (a map of URLs, a list of images) is rendered in.
const LINK_CAP: usize = 240;

/// One step of a column's path from an item to the object holding the column's field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// The field of this name.
    Key(String),
    /// Each shown item of the list.
    Each,
}

/// How much a column matters, most first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Rank {
    /// The core identities (see [`super::core`]) of an object within [`CORE_DEPTH`] levels:
    /// the item's skeleton.
    Skeleton,
    /// What places a wrapper item's entity for a next call (a playlist item's, a saved
    /// track's `track`: the item has no identities of its own, so that entity is what it is):
    /// the entity's locator (its `uri`, which Spotify's `POST /playlists/{id}/tracks` takes,
    /// even where it holds its id) and its number within its own kind (a track's
    /// `track_number`, named by its `type`). Before the keys of the entities it holds (its
    /// album's id): acting on the item comes before acting on its parts. Not worth an item
    /// (four recently played tracks without their uris rather than three with them).
    Handle,
    /// A key of an entity nested within [`CORE_DEPTH`] levels that its core form leaves out
    /// for being long (an album's `artists[].id`, a 22-character Spotify id): the first
    /// column after the items' units (skeleton, roles, asked fields, own dates, which decide
    /// how many items are shown) and a wrapper item's handle, before any other field of the
    /// item, since the next call
    /// takes the key (follow the artist), not the name. The name comes first (in the core
    /// form) because it is what tells the agent which entity this is, and the key is not
    /// worth an item: three recently played tracks with their album and artist ids are
    /// worth less than four without.
    NestedKey,
    /// A short field of the item itself that says its role or relation in the list (a crew
    /// member's `job`, a cast member's billing `order`), the surer ones first: see
    /// [`super::qualify`].
    Qualifier(Qualifier),
    /// A field whose name shares a word stem with the request (`popularity` for "the most
    /// popular show", see [`super::asked`]), at any depth of the item: the request filters or
    /// ranks on it.
    Asked,
    /// A longer snippet of a text the API exists to return (a review's `content`), which the
    /// item's core form shows in a short one: grown with the items' units (see
    /// [`Column::grows_early`]), before their own dates take items away; longer ones, then
    /// the whole text, are long texts.
    Snippet,
    /// A short scalar of the item itself (a date, a count, a timestamp), or of a sub-object
    /// with no identities of its own (a forecast's `main.temp`): it says something of the item.
    OwnScalar,
    /// The same for an item that is itself the entity (a track of an artist's top tracks, a
    /// playlist of the user's): its locator and its number within its own kind, after its
    /// own scalars (a playlist's track count) and before its other identities. Not worth an
    /// item either: a request putting items somewhere asks for the locator (see
    /// [`Rank::Asked`]), and that takes items.
    OwnHandle,
    /// An own number every item of the list shares (every track's `disc_number` 1): it tells
    /// no item apart, so it waits for the items' handles.
    Alike,
    /// The other identities of an object within [`CORE_DEPTH`] levels (a `type`, a nested
    /// entity's id, an `album_type`).
    Identity,
    /// The identities of a deeper object, its core first.
    DeepIdentity,
    /// A short scalar of a nested entity (a device's volume, a track's album's release date).
    NestedScalar,
    /// A long text, shortened, then whole.
    LongText,
    /// A value without identities (a list of codes, an empty value).
    Other,
    /// A map of booleans.
    Flags,
    /// A URL or an image of another API, or a nested entity's locator that restates its key
    /// (an album's `uri` within a track; the item's own is an [`Rank::Identity`]).
    Link,
}

/// What a column adds to the object at its path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// The object's core identities (see [`super::core`]).
    Core,
    /// The field whole.
    Whole(String),
    /// The field's string shortened to a cap.
    Shortened(String, usize),
    /// The field rendered within a cap.
    Rendered(String, usize),
}

/// A field of the items of a list, at a path, in the form it is added.
#[derive(Clone, Debug)]
pub(crate) struct Column {
    pub(super) path: Vec<Step>,
    pub(super) form: Form,
    rank: Rank,
    depth: usize,
    /// The field's place among its object's fields: each nested object shows its first
    /// field before any shows its second.
    index: usize,
    kind: Kind,
    /// A nested entity's locator that restates its key: the request naming locators ("add
    /// them to my playlist") asks for the items' own, not for these.
    restated: bool,
}

/// What a scalar column holds, in the order the columns of one rank and level are added: a
/// date says most of an item, a switch least.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// A date or a time (`release_date`, `played_at`, `2024-05-01`).
    Date,
    /// Any other string, or a value that is not a scalar.
    Text,
    /// A number (a count, a measure).
    Number,
    /// A boolean.
    Switch,
}

impl Kind {
    pub(super) fn of(name: &str, value: &Value) -> Self {
        let lower = name.to_ascii_lowercase();
        let dated = ["_at", "date", "time", "_on"]
            .iter()
            .any(|e| lower.ends_with(e));
        match value {
            Value::Bool(_) => Self::Switch,
            Value::Number(_) if !dated => Self::Number,
            Value::String(s) if !dated && !looks_like_date(s) => Self::Text,
            Value::Number(_) | Value::String(_) => Self::Date,
            _ => Self::Text,
        }
    }
}

/// Whether `s` starts as an ISO date does (`2024-05-01...`).
fn looks_like_date(s: &str) -> bool {
    crate::dates::starts_as_date(s, crate::dates::Precision::Day)
}

impl Column {
    /// How much this column matters.
    pub(crate) fn rank(&self) -> Rank {
        self.rank
    }

    /// Whether this column may take shown items away to fit across the rest: the items'
    /// skeletons, their roles and their own dates (fewer items, each saying its role and
    /// when, rather than more without), and the first snippet of the text the API exists to
    /// return, which is grown before those dates (fewer reviews, each with its author and a
    /// readable snippet); a position (mostly the list's own order), a mere category (a
    /// language) and an item's other own scalars are not worth an item.
    pub(crate) fn takes_items(&self) -> bool {
        let first_snippet = matches!(self.form, Form::Shortened(_, cap) if cap == SNIPPET_CAPS[0]);
        matches!(
            self.rank,
            Rank::Skeleton
                | Rank::Qualifier(Qualifier::Role | Qualifier::Distinction)
                | Rank::Asked
        ) || (self.rank == Rank::OwnScalar && self.kind == Kind::Date)
            || (self.rank == Rank::Snippet && first_snippet)
    }

    /// Whether this column is grown with the items' units, before the columns of lower rank:
    /// the columns that take items, and a snippet of the text the API exists to return.
    pub(crate) fn grows_early(&self) -> bool {
        self.takes_items() || self.rank == Rank::Snippet
    }

    /// The fewest items this column may leave where the other columns that take items leave
    /// `floor`: a qualifier may take more of them (fewer crew members, each saying their
    /// job), and a field the request asks about more still.
    pub(crate) fn floor(&self, floor: usize) -> usize {
        let share = match self.rank {
            Rank::Qualifier(_) => ROLE_FLOOR_SHARE,
            Rank::Asked => ASKED_FLOOR_SHARE,
            _ => return floor,
        };
        (floor * share.0).div_ceil(share.1)
    }

    /// Ranks this column a qualifier if it is an own short field of the items (not a date
    /// or a switch) that [`qualifier`] finds says their role in the list.
    fn qualify(&mut self, items: &[&Value], ctx: &Context) {
        let own = self.rank == Rank::OwnScalar && self.path.is_empty();
        let kind = matches!(self.kind, Kind::Text | Kind::Number);
        if let (true, true, Form::Whole(name)) = (own, kind, &self.form)
            && let Some(how) = qualifier(name, items, ctx)
        {
            self.rank = Rank::Qualifier(how);
        }
    }

    /// Ranks this column [`Rank::Alike`] if it is an own number of the items that every one
    /// of them has, with one value.
    fn alike(&mut self, items: &[&Value]) {
        let own = self.rank == Rank::OwnScalar && self.path.is_empty();
        if let (true, Kind::Number, Form::Whole(name)) = (own, self.kind, &self.form) {
            let mut values = items.iter().map(|item| item.get(name.as_str()));
            let first = values.next().flatten();
            if first.is_some() && values.all(|v| v == first) {
                self.rank = Rank::Alike;
            }
        }
    }

    /// Ranks this column a role if it is a short field of the items of a list nested in the
    /// items (a season's `episodes[].crew[].job`) that [`qualifier`] finds says their role
    /// in that list, across the nested items of all of `items`.
    fn qualify_nested(&mut self, items: &[&Value], ctx: &Context) {
        let nested = matches!(self.path.last(), Some(Step::Each));
        let kind = matches!(self.kind, Kind::Text | Kind::Number);
        let scalar = matches!(self.rank, Rank::OwnScalar | Rank::NestedScalar);
        if let (true, true, true, Form::Whole(name)) = (nested, kind, scalar, &self.form) {
            let mut inner = Vec::new();
            for item in items {
                reach(item, &self.path, &mut inner);
            }
            let how = qualifier(name, &inner, ctx);
            if let (true, Some(how @ (Qualifier::Role | Qualifier::Distinction))) =
                (inner.len() > 1, how)
            {
                self.rank = Rank::Qualifier(how);
            }
        }
    }

    /// Ranks this column [`Rank::Asked`] if its field's name shares a word stem with the
    /// request, unless it ranks higher already; a wrapper item's [`Rank::Handle`] ranks higher
    /// but takes no items, so the request asking for it still makes it asked.
    fn ask(&mut self, ctx: &Context) {
        let name = match &self.form {
            Form::Core => return,
            Form::Whole(name) | Form::Shortened(name, _) | Form::Rendered(name, _) => name,
        };
        // A handle the request asks for ("add them to my playlist": the `uri`) takes items
        // as an asked field does.
        let lower = self.rank > Rank::Asked || self.rank == Rank::Handle;
        if lower && !self.restated && ctx.is_asked(name) {
            self.rank = Rank::Asked;
        }
    }
}

/// Which fields the columns reach into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Every object and list of objects an item holds, its content too.
    All,
    /// Only what holds identities and is not content: an object's payload is rendered on its
    /// own (its own columns then reach into it).
    Held,
}

/// The columns of `items` (the union over them), most important first, as found.
pub(crate) fn columns(items: &[&Value], reach: Reach, ctx: &Context) -> Vec<Column> {
    let mut out: Vec<Column> = Vec::new();
    for item in items {
        if let Value::Object(map) = item {
            let top = Level {
                depth: 0,
                own: true,
                under: false,
            };
            walk(map, &mut Vec::new(), top, reach, ctx, &mut out);
        }
    }
    // Roles say something only across several items; so does a number they all share.
    if items.len() > 1 {
        for column in &mut out {
            column.qualify(items, ctx);
            column.qualify_nested(items, ctx);
            column.alike(items);
        }
    }
    for column in &mut out {
        column.ask(ctx);
    }
    out.sort_by_key(|c| (c.rank, c.depth, c.kind, c.index));
    out
}

/// Adds the columns of the object `map` at `path` (at `level`) to `out`.
fn walk(
    map: &Map<String, Value>,
    path: &mut Vec<Step>,
    level: Level,
    reach: Reach,
    ctx: &Context,
    out: &mut Vec<Column>,
) {
    let here = has_identity(map, ctx);
    // The core identities and scalar content are in every shown object's core form already.
    let core = core_fields(map, level.under, ctx);
    snippets(map, &core, path, level, ctx, out);
    let fields = ordered(map, ctx)
        .into_iter()
        .filter(|(name, _)| !core.contains(name));
    for (index, (name, class)) in fields.enumerate() {
        let Some(value) = map.get(name) else {
            continue;
        };
        let at = Place {
            level,
            index,
            kind: Kind::Text,
        };
        match value {
            _ if class == Class::Purpose && reach == Reach::Held => {}
            _ if matches!(class, Class::Identity(_)) => {
                identity_column(map, name, path, at, ctx, out);
            }
            Value::Object(sub) if nests(class, level.depth) => {
                path.push(Step::Key(name.to_owned()));
                walk_object(sub, path, at, here, reach, ctx, out);
                path.pop();
            }
            Value::Array(subs) if walks_list(class, level.depth, reach) && holds_objects(subs) => {
                path.push(Step::Key(name.to_owned()));
                walk_list(subs, path, at, here, reach, ctx, out);
                path.pop();
            }
            _ if !level.under && is_subject(map, level) && numbers_own_kind(map, name, value) => {
                let at = Place {
                    kind: Kind::Number,
                    ..at
                };
                push(
                    out,
                    path,
                    Form::Whole(name.to_owned()),
                    handle_rank(level),
                    at,
                );
            }
            _ => leaf(name, value, class, path, at, out),
        }
    }
}

/// The rank of a handle (see [`Rank::Handle`]) of the entity at `level`: the item itself, or
/// one a wrapper item holds.
fn handle_rank(level: Level) -> Rank {
    if level.depth == 0 {
        Rank::OwnHandle
    } else {
        Rank::Handle
    }
}

/// Whether `map` (at `level`, no entity above it) is the entity an item is: the item itself,
/// or an entity it holds that has a name (a playlist item's `track`), not a bare reference
/// such as the item's `added_by` user, which has only a key.
fn is_subject(map: &Map<String, Value>, level: Level) -> bool {
    level.depth == 0 || map.keys().any(|name| identity_rank_of(name) == Some(1))
}

/// Whether field `name` of `map` numbers the object within its own kind: a whole number whose
/// name starts with the object's `type` (`track_number` in a track, `episode_number` in an
/// episode), unlike a number of a larger whole (`disc_number`, an album's `total_tracks`).
fn numbers_own_kind(map: &Map<String, Value>, name: &str, value: &Value) -> bool {
    let Some(kind) = map.get("type").and_then(Value::as_str) else {
        return false;
    };
    let words: Vec<String> = super::asked::name_words(name)
        .iter()
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let numbers = |word: &str| ["number", "index", "position", "no"].contains(&word);
    value.is_u64()
        && matches!(words.as_slice(), [own, place] if own.eq_ignore_ascii_case(kind) && numbers(place))
}

/// Adds the column of the identity field `name` of `map` (at `path`, in place `at`) to `out`.
/// A nested entity's locator restating its key is worth least; the item's own (its first
/// entity's) is what a next call takes to act on the item.
fn identity_column(
    map: &Map<String, Value>,
    name: &str,
    path: &[Step],
    at: Place,
    ctx: &Context,
    out: &mut Vec<Column>,
) {
    let restated = at.level.under && restates(map, name, ctx);
    let nested_key = at.level.under && !is_locator(name) && identity_rank_of(name) == Some(0);
    let own_locator = !at.level.under && is_locator(name) && is_subject(map, at.level);
    let rank = match rest_rank(at.level.depth) {
        _ if restated => Rank::Link,
        Rank::Identity if nested_key => Rank::NestedKey,
        Rank::Identity if own_locator => handle_rank(at.level),
        rank => rank,
    };
    let form = Form::Shortened(name.to_owned(), IDENTITY_CAP);
    push(out, path, form.clone(), rank, at);
    let same = |c: &&mut Column| c.path == path && c.form == form;
    if restated && let Some(column) = out.iter_mut().find(same) {
        column.restated = true;
    }
}

/// Adds the columns of the object `sub` at `path`, held by a field in place `at` of an
/// object that is an entity (`here`) or not: its core identities if it is an entity, then
/// its own columns.
fn walk_object(
    sub: &Map<String, Value>,
    path: &mut Vec<Step>,
    at: Place,
    here: bool,
    reach: Reach,
    ctx: &Context,
    out: &mut Vec<Column>,
) {
    let entity = has_identity(sub, ctx);
    if entity {
        let rank = identity_rank(at.level.depth + 1);
        push(out, path, Form::Core, rank, at.down(here));
    }
    // A count of the object (a playlist's `tracks.total`) is one of its own fields.
    let level = if !entity && is_count_holder(sub) {
        at.level.beside(here)
    } else {
        at.level.below(entity, here)
    };
    walk(sub, path, level, reach, ctx, out);
}

/// Adds the columns of the list of objects `subs` at `path`, held as [`walk_object`]'s
/// object is: its items' core identities, then the columns of its first items.
fn walk_list(
    subs: &[Value],
    path: &mut Vec<Step>,
    at: Place,
    here: bool,
    reach: Reach,
    ctx: &Context,
    out: &mut Vec<Column>,
) {
    path.push(Step::Each);
    let rank = identity_rank(at.level.depth + 1);
    push(out, path, Form::Core, rank, at.down(here));
    for sub in subs.iter().take(NESTED_ITEMS).filter_map(Value::as_object) {
        walk(sub, path, at.level.below(true, here), reach, ctx, out);
    }
    path.pop();
}

/// Adds the columns that grow the texts of `core` (the fields of `map`'s core form) that it
/// shows as snippets: the content an API exists to return (a review's `content`).
fn snippets(
    map: &Map<String, Value>,
    core: &[&str],
    path: &[Step],
    level: Level,
    ctx: &Context,
    out: &mut Vec<Column>,
) {
    for (index, name) in core.iter().enumerate() {
        let Some(value @ Value::String(text)) = map.get(*name) else {
            continue;
        };
        if ctx.class(name, value) != Class::Purpose {
            continue;
        }
        let length = text.chars().count();
        if length <= IDENTITY_CAP {
            continue;
        }
        let at = Place {
            level,
            index,
            kind: Kind::Text,
        };
        let early = SNIPPET_CAPS.iter().map(|cap| (*cap, Rank::Snippet));
        let late = LONG_SNIPPET_CAPS.iter().map(|cap| (*cap, Rank::LongText));
        for (cap, rank) in early.chain(late).filter(|(cap, _)| *cap < length) {
            let form = Form::Shortened((*name).to_owned(), cap);
            push(out, path, form, rank, at);
        }
        push(
            out,
            path,
            Form::Whole((*name).to_owned()),
            Rank::LongText,
            at,
        );
    }
}

/// Adds to `out` the objects at `path` in `value` (every item of a list on the way).
fn reach<'v>(value: &'v Value, path: &[Step], out: &mut Vec<&'v Value>) {
    match (path.split_first(), value) {
        (None, Value::Object(_)) => out.push(value),
        (Some((Step::Key(key), rest)), Value::Object(map)) => {
            if let Some(sub) = map.get(key) {
                reach(sub, rest, out);
            }
        }
        (Some((Step::Each, rest)), Value::Array(subs)) => {
            for sub in subs {
                reach(sub, rest, out);
            }
        }
        _ => {}
    }
}

/// Adds the column of a field that is shown as a value, not walked into.
fn leaf(name: &str, value: &Value, class: Class, path: &[Step], at: Place, out: &mut Vec<Column>) {
    let at = Place {
        kind: Kind::of(name, value),
        ..at
    };
    let whole = Form::Whole(name.to_owned());
    let capped = |cap| Form::Rendered(name.to_owned(), cap);
    match (class, value) {
        // An empty value says nothing: no column shows it.
        (Class::Empty, _) => {}
        (Class::Link, Value::Object(_) | Value::Array(_)) => {
            push(out, path, capped(LINK_CAP), Rank::Link, at);
        }
        (Class::Link, _) => push(out, path, whole, Rank::Link, at),
        (Class::Flags, _) => push(out, path, whole, Rank::Flags, at),
        (_, Value::Object(_) | Value::Array(_) | Value::Null) => {
            push(out, path, capped(OTHER_CAP), Rank::Other, at);
        }
        (_, Value::String(s)) if s.chars().count() > SHORT_TEXT => {
            let short = Form::Shortened(name.to_owned(), LONG_TEXT_CAP);
            push(out, path, short, Rank::LongText, at);
            push(out, path, whole, Rank::LongText, at);
        }
        // A kind (`album_type`) says what the object is, as its `type` does.
        _ if name.to_ascii_lowercase().ends_with("_type") => {
            push(out, path, whole, rest_rank(at.level.depth), at);
        }
        _ if at.level.own => push(out, path, whole, Rank::OwnScalar, at),
        _ => push(out, path, whole, Rank::NestedScalar, at),
    }
}

/// Whether a field of this class at this depth is walked into rather than shown as a value.
fn nests(class: Class, depth: usize) -> bool {
    depth < MAX_DEPTH && matches!(class, Class::Purpose | Class::Holder | Class::Other)
}

/// Whether a list field of this class at this depth is walked into, item by item.
fn walks_list(class: Class, depth: usize, reach: Reach) -> bool {
    depth < MAX_DEPTH
        && (class == Class::Holder || (class == Class::Purpose && reach == Reach::All))
}

fn holds_objects(items: &[Value]) -> bool {
    items.first().is_some_and(Value::is_object)
}

/// The rank of the core identities of an object at `depth`.
fn identity_rank(depth: usize) -> Rank {
    if depth <= CORE_DEPTH {
        Rank::Skeleton
    } else {
        Rank::DeepIdentity
    }
}

/// The rank of the identities beyond its core of an object at `depth`.
fn rest_rank(depth: usize) -> Rank {
    if depth <= CORE_DEPTH {
        Rank::Identity
    } else {
        Rank::DeepIdentity
    }
}

/// Adds a column unless one of the same path and form is there already.
fn push(out: &mut Vec<Column>, path: &[Step], form: Form, rank: Rank, at: Place) {
    if out.iter().any(|c| c.path == path && c.form == form) {
        return;
    }
    out.push(Column {
        path: path.to_vec(),
        form,
        rank,
        depth: at.level.depth,
        index: at.index,
        kind: at.kind,
        restated: false,
    });
}

/// How deep an object is: its level of objects, whether it is still the item itself (no
/// object with identities of its own lies on the way to it), and whether an object with
/// identities lies above it (its core form is then a nested entity's, see [`super::core`]).
#[derive(Clone, Copy, Debug)]
struct Level {
    depth: usize,
    own: bool,
    under: bool,
}

impl Level {
    /// The level of a sub-object that is no entity and counts as its holder's own fields (see
    /// [`is_count_holder`]): the same depth, held by an entity if `here` is one.
    fn beside(self, here: bool) -> Self {
        Self {
            under: self.under || here,
            ..self
        }
    }

    /// The level of a sub-object, an entity of its own or not, of an object that is one
    /// (`here`) or not.
    fn below(self, entity: bool, here: bool) -> Self {
        Self {
            depth: self.depth + 1,
            own: self.own && !entity,
            under: self.under || here,
        }
    }
}

/// Where a field is: its object's level and its place among that object's fields.
#[derive(Clone, Copy, Debug)]
struct Place {
    level: Level,
    index: usize,
    kind: Kind,
}

impl Place {
    /// The place of the identities of the object this field holds, in an object that is an
    /// entity (`here`) or not.
    fn down(self, here: bool) -> Self {
        Self {
            level: self.level.below(true, here),
            index: 0,
            kind: Kind::Text,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The rank and path of each column, in order, with the field it adds.
    fn ranked(items: &[&Value]) -> Vec<(Rank, String)> {
        let ctx = Context::new(Some("/me/player/recently-played"), None);
        ranked_in(items, &ctx)
    }

    /// [`ranked`] in a context.
    fn ranked_in(items: &[&Value], ctx: &Context) -> Vec<(Rank, String)> {
        columns(items, Reach::All, ctx)
            .iter()
            .map(|c| {
                let mut path: Vec<String> = c
                    .path
                    .iter()
                    .map(|s| match s {
                        Step::Key(k) => k.clone(),
                        Step::Each => "[]".to_owned(),
                    })
                    .collect();
                match &c.form {
                    Form::Core => path.push("*".to_owned()),
                    Form::Whole(f) | Form::Shortened(f, _) | Form::Rendered(f, _) => {
                        path.push(f.clone());
                    }
                }
                (c.rank, path.join("."))
            })
            .collect()
    }

    #[test]
    fn an_items_skeleton_and_own_dates_rank_before_nested_details_and_links() {
        let item = json!({
            "track": {"id": "t", "name": "Song", "popularity": 70, "explicit": false,
                      "album": {"id": "a", "name": "Album", "release_date": "2020-01-02",
                                "artists": [{"id": "x", "name": "X", "bio": "b".repeat(60)}]},
                      "artists": [{"id": "x", "name": "X"}],
                      "href": "https://api.example/t"},
            "played_at": "2025-11-01T10:04:05Z",
            "plays": 3,
            "context": {"uri": "spotify:playlist:p", "href": "https://api.example/p"},
            "stats": {"skips": 1}
        });
        let order = ranked(&[&item]);
        let at = |path: &str| {
            order
                .iter()
                .position(|(_, p)| p == path)
                .unwrap_or(usize::MAX)
        };
        assert_eq!(order[0].0, Rank::Skeleton, "{order:?}");
        // The track's album and artists are part of the skeleton: within two levels.
        assert!(at("track.album.*") < at("played_at"), "{order:?}");
        assert!(at("track.artists.[].*") < at("played_at"), "{order:?}");
        // A date of the item itself before its counts; a sub-object without identities
        // (`stats`) says something of the item itself.
        assert!(at("played_at") < at("plays"), "{order:?}");
        assert_eq!(order[at("stats.skips")].0, Rank::OwnScalar, "{order:?}");
        // The album's artists are a level deeper; the track's own details are a nested
        // entity's; long texts and links come after them.
        assert_eq!(order[at("track.album.artists.[].*")].0, Rank::DeepIdentity);
        assert_eq!(order[at("track.popularity")].0, Rank::NestedScalar);
        assert!(at("track.popularity") < at("track.explicit"), "{order:?}");
        assert!(at("track.album.release_date") < at("track.album.artists.[].bio"));
        assert_eq!(order.last().map(|(r, _)| *r), Some(Rank::Link), "{order:?}");
    }

    #[test]
    fn other_identities_follow_the_items_own_dates_and_restated_keys_go_last() {
        let long = "4aawyAB9vmqN3uQ7FjRGTy";
        let item = json!({
            "track": {"id": "t", "name": "Song", "type": "track", "uri": "spotify:track:t0000",
                      "album": {"id": long, "name": "Album", "type": "album",
                                "uri": format!("spotify:album:{long}"), "album_type": "single"}},
            "played_at": "2025-11-01T10:04:05Z",
            "context": {"type": "playlist", "uri": "spotify:playlist:p"},
        });
        let order = ranked(&[&item]);
        let rank = |path: &str| {
            order
                .iter()
                .find(|(_, p)| p == path)
                .map(|(r, _)| *r)
                .unwrap_or(Rank::Link)
        };
        let at = |path: &str| order.iter().position(|(_, p)| p == path);
        // The album's core is its name; its long id is the first column after the items'
        // units (it takes no item, so it grows after the item's date), its kinds and the
        // context's uri (its core is its kind) come after the item's date.
        assert_eq!(rank("track.album.*"), Rank::Skeleton, "{order:?}");
        let album_id = order.iter().find(|(_, p)| p == "track.album.id");
        assert_eq!(
            album_id.map(|(r, _)| *r),
            Some(Rank::NestedKey),
            "{order:?}"
        );
        let ctx = Context::new(Some("/me/player/recently-played"), None);
        let columns = columns(&[&item], Reach::All, &ctx);
        let key = columns.iter().find(|c| c.rank() == Rank::NestedKey);
        assert!(key.is_some_and(|c| !c.grows_early()), "{order:?}");
        for path in [
            "track.album.type",
            "track.album.album_type",
            "track.type",
            "context.uri",
        ] {
            assert_eq!(rank(path), Rank::Identity, "{path}: {order:?}");
            assert!(at(path) > at("played_at"), "{path}: {order:?}");
        }
        // A uri holding its object's key only restates it: with the links. A key too short to
        // mean anything (the track's `t`) does not make its uri a restatement.
        assert_eq!(rank("track.album.uri"), Rank::Link, "{order:?}");
        assert_eq!(rank("track.uri"), Rank::Handle, "{order:?}");
        // The track's uri is its handle, before the album's long id; the context, which has
        // no name, is no subject of the item: its uri is one of its other identities.
        assert!(at("track.uri") < at("track.album.id"), "{order:?}");
    }

    #[test]
    fn an_items_own_locator_is_its_handle_and_a_request_adding_items_asks_for_it() {
        let (track, album) = ("3n3Ppam7vgaVa1iaRUc9Lp", "4aawyAB9vmqN3uQ7FjRGTy");
        let item = json!({"id": track, "name": "Song", "uri": format!("spotify:track:{track}"),
                          "album": {"id": album, "name": "Album",
                                    "uri": format!("spotify:album:{album}")}});
        let rank = |task: Option<&str>, path: &str| {
            let ctx = Context::new(Some("/recommendations"), None).with_request(task, None);
            ranked_in(&[&item], &ctx)
                .into_iter()
                .find(|(_, p)| p == path)
                .map(|(r, _)| r)
        };
        // The track's uri restates its id, yet it is what a call adding the track takes; the
        // album's stays with the links.
        assert_eq!(rank(None, "uri"), Some(Rank::OwnHandle));
        assert_eq!(rank(None, "album.uri"), Some(Rank::Link));
        let task = Some("Add these songs to my playlist");
        assert_eq!(rank(task, "uri"), Some(Rank::Asked));
        assert_eq!(rank(task, "album.uri"), Some(Rank::Link));
    }

    #[test]
    fn kinds_put_dates_first_and_switches_last() {
        assert_eq!(
            Kind::of("played_at", &json!("2025-11-01T10:04:05Z")),
            Kind::Date
        );
        assert_eq!(Kind::of("first_air", &json!("2019-03-04")), Kind::Date);
        assert_eq!(Kind::of("timestamp", &json!(1_700_000_000)), Kind::Number);
        assert_eq!(Kind::of("updated_on", &json!(1_700_000_000)), Kind::Date);
        assert_eq!(Kind::of("job", &json!("Producer")), Kind::Text);
        assert_eq!(Kind::of("adult", &json!(false)), Kind::Switch);
    }
}
