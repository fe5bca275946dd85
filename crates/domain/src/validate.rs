//! The rules that make one game version whole: references resolve to a record of the right type,
//! names are unique, values are in range, every text key exists in English, and no recipe needs its
//! own output. Checked before anything is stored, so that served data never holds a dangling reference.

use std::collections::{HashMap, HashSet};
use std::fmt;

use crate::{
    AgingDays, FORMAT, GameData, GameDay, Ingredient, Input, Item, ItemAmount, ItemId, ItemKind,
    LetterTrigger, ProgressionKey, ProgressionRecord, RecordId, RecordType, ReputationMilestone, Rewards,
    SOURCE_LANGUAGE, Slug, TextKey, Unlock,
};

/// One thing wrong with a game version, located as precisely as the data allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file of the version folder, relative to it (`recipes.json`, `localization/en.json`).
    pub file: String,
    /// The record, by id and slug or by key; none for problems of a whole file.
    pub record: Option<String>,
    /// The field, as a path into the record (`ingredients[2].item`).
    pub field: String,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(record) = &self.record {
            write!(f, ", record {record}")?;
        }
        write!(f, ", field `{}`: {}", self.field, self.message)
    }
}

/// Checks one game version and returns every problem found, in file order; within a file, repeated
/// ids and slugs first, then each record's own problems in record order, then what only the whole
/// file shows (cycles of replacements and of recipes). Empty when the version is whole.
pub fn validate(data: &GameData) -> Vec<Problem> {
    let mut v = Validator::new(data);
    v.manifest();
    v.items();
    v.recipes();
    v.groups();
    v.stations();
    v.crops();
    v.shops();
    v.shopkeepers();
    v.fish();
    v.progression();
    v.recipe_cycles();
    // The checks that span files (recipe cycles) report last: put each problem back in its file's place.
    let mut problems = v.problems;
    problems.sort_by_key(|p| file_rank(&p.file));
    problems
}

/// Where a file comes in the data format's order: the manifest and the English table, then the
/// record files in the order of [`RecordType::ALL`].
fn file_rank(file: &str) -> usize {
    let record_file =
        file.strip_suffix(".json").and_then(|name| RecordType::PLURALS.iter().position(|p| *p == name));
    match record_file {
        Some(i) => 2 + i,
        None if file == "manifest.json" => 0,
        None => 1,
    }
}

/// The record being checked: where its problems are reported.
struct Here {
    file: String,
    record: String,
}

struct Validator<'a> {
    data: &'a GameData,
    problems: Vec<Problem>,
    items: HashMap<ItemId, &'a Item>,
    groups: HashMap<RecordId, &'a [ItemId]>,
    recipes: HashSet<RecordId>,
    stations: HashSet<RecordId>,
    shopkeepers: HashSet<RecordId>,
    keys: HashMap<RecordType, HashSet<&'a ProgressionKey>>,
    reputation_levels: HashSet<u32>,
    english: Option<&'a crate::TextTable>,
}

impl<'a> Validator<'a> {
    fn new(data: &'a GameData) -> Self {
        let keys = [
            (RecordType::Quest, data.quests.iter().map(|r| &r.key).collect()),
            (RecordType::Perk, data.perks.iter().map(|r| &r.key).collect()),
            (RecordType::Spell, data.spells.iter().map(|r| &r.key).collect()),
            (RecordType::Talent, data.talents.iter().map(|r| &r.key).collect()),
            (RecordType::Reputation, data.reputation.iter().map(|r| &r.key).collect()),
            (RecordType::Mission, data.missions.iter().map(|r| &r.key).collect()),
            (RecordType::Letter, data.letters.iter().map(|r| &r.key).collect()),
        ];
        Self {
            data,
            problems: Vec::new(),
            items: data.items.iter().map(|i| (i.id, i)).collect(),
            groups: data.ingredient_groups.iter().map(|g| (g.id, g.members.as_slice())).collect(),
            recipes: data.recipes.iter().map(|r| r.id).collect(),
            stations: data.crafting_stations.iter().map(|s| s.id).collect(),
            shopkeepers: data.shopkeepers.iter().map(|s| s.id).collect(),
            keys: keys.into_iter().collect(),
            reputation_levels: data.reputation.iter().map(|r| r.level).collect(),
            english: data.texts.get(SOURCE_LANGUAGE),
        }
    }

    fn report(&mut self, here: &Here, field: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem {
            file: here.file.clone(),
            record: Some(here.record.clone()),
            field: field.into(),
            message: message.into(),
        });
    }

    fn manifest(&mut self) {
        if self.data.manifest.format != FORMAT {
            self.problems.push(Problem {
                file: "manifest.json".into(),
                record: None,
                field: "format".into(),
                message: format!(
                    "format {} is not supported; this importer reads format {FORMAT}",
                    self.data.manifest.format
                ),
            });
        }
        if self.english.is_none() {
            self.problems.push(Problem {
                file: format!("localization/{SOURCE_LANGUAGE}.json"),
                record: None,
                field: "(file)".into(),
                message: "the English table is required: it is the source every other language falls back to"
                    .into(),
            });
        }
    }

    /// Reports duplicate ids and slugs of one record file.
    fn unique_ids<'r>(
        &mut self,
        kind: RecordType,
        records: impl Iterator<Item = (RecordId, Option<&'r Slug>)>,
    ) {
        let mut ids = HashSet::new();
        let mut slugs = HashSet::new();
        for (id, slug) in records {
            let here = here_id(kind, id, slug);
            if !ids.insert(id) {
                self.report(&here, "id", format!("id {id} is used by an earlier record of this file"));
            }
            if let Some(slug) = slug
                && !slugs.insert(slug)
            {
                self.report(
                    &here,
                    "slug",
                    format!("slug {:?} is used by an earlier record of this file", slug.as_str()),
                );
            }
        }
    }

    fn text(&mut self, here: &Here, field: &str, key: &TextKey) {
        let Some(english) = self.english else { return };
        match english.get(key) {
            Some(text) if !text.trim().is_empty() => {}
            Some(_) => {
                self.report(here, field, format!("text key {:?} has an empty English text", key.as_str()))
            }
            None => self.report(
                here,
                field,
                format!("text key {:?} is missing from localization/en.json", key.as_str()),
            ),
        }
    }

    fn item(&mut self, here: &Here, field: &str, id: ItemId) -> Option<ItemKind> {
        let kind = self.items.get(&id).map(|item| item.kind);
        if kind.is_none() {
            self.report(here, field, format!("no item with id {id}"));
        }
        kind
    }

    fn item_of_kind(&mut self, here: &Here, field: &str, id: ItemId, wanted: ItemKind) {
        if let Some(kind) = self.item(here, field, id)
            && kind != wanted
        {
            self.report(here, field, format!("item {id} is of kind `{kind}`, not `{wanted}`"));
        }
    }

    fn item_amounts(&mut self, here: &Here, field: &str, entries: &[ItemAmount]) {
        for (i, entry) in entries.iter().enumerate() {
            self.item(here, &format!("{field}[{i}].item"), entry.item);
            self.positive(here, &format!("{field}[{i}].amount"), entry.amount.into());
        }
    }

    fn positive(&mut self, here: &Here, field: &str, value: u64) {
        if value == 0 {
            self.report(here, field, "must be at least 1");
        }
    }

    fn key(&mut self, here: &Here, field: &str, kind: RecordType, key: &ProgressionKey) {
        if !self.keys.get(&kind).is_some_and(|keys| keys.contains(key)) {
            self.report(here, field, format!("no record with key {:?} in {kind}.json", key.as_str()));
        }
    }

    fn shopkeeper(&mut self, here: &Here, field: &str, id: RecordId) {
        if !self.shopkeepers.contains(&id) {
            self.report(here, field, format!("no shopkeeper with id {id}"));
        }
    }

    fn seasons(&mut self, here: &Here, field: &str, seasons: &[crate::Season], allow_empty: bool) {
        if seasons.is_empty() && !allow_empty {
            self.report(here, field, "must name at least one season");
        }
        if let Some(repeated) = first_repeat(seasons) {
            self.report(here, field, format!("season `{repeated}` is listed twice"));
        }
    }

    fn game_day(&mut self, here: &Here, field: &str, day: &GameDay) {
        if !(1..=GameDay::DAYS_PER_SEASON).contains(&day.day) {
            self.report(here, format!("{field}.day"), "a season has days 1 to 28");
        }
    }

    fn rewards(&mut self, here: &Here, rewards: &Rewards) {
        self.item_amounts(here, "rewards.items", &rewards.items);
        for (i, recipe) in rewards.recipes.iter().enumerate() {
            if !self.recipes.contains(recipe) {
                self.report(here, format!("rewards.recipes[{i}]"), format!("no recipe with id {recipe}"));
            }
        }
    }

    fn items(&mut self) {
        let data = self.data;
        self.unique_ids(RecordType::Item, data.items.iter().map(|r| (r.id, Some(&r.slug))));
        for item in &data.items {
            let here = here_id(RecordType::Item, item.id, Some(&item.slug));
            self.text(&here, "name_key", &item.name_key);
            if let Some(key) = &item.description_key {
                self.text(&here, "description_key", key);
            }
            self.positive(&here, "servings", item.servings.into());
            self.positive(&here, "stack_size", item.stack_size.into());
            if let Some(fuel) = item.fuel_value {
                self.positive(&here, "fuel_value", fuel.into());
            }
            for (i, gathering) in item.gathering.iter().enumerate() {
                self.seasons(&here, &format!("gathering[{i}].seasons"), &gathering.seasons, true);
                let earlier = &item.gathering[..i];
                if earlier.iter().any(|g| g.method == gathering.method && g.from == gathering.from) {
                    self.report(
                        &here,
                        format!("gathering[{i}]"),
                        format!("`{}` from `{}` is listed twice", gathering.method, gathering.from),
                    );
                }
            }
        }
    }

    fn recipes(&mut self) {
        let data = self.data;
        self.unique_ids(RecordType::Recipe, data.recipes.iter().map(|r| (r.id, Some(&r.slug))));
        let outputs: HashMap<RecordId, ItemId> = data.recipes.iter().map(|r| (r.id, r.output.item)).collect();
        for recipe in &data.recipes {
            let here = here_id(RecordType::Recipe, recipe.id, Some(&recipe.slug));
            self.text(&here, "name_key", &recipe.name_key);
            if !self.stations.contains(&recipe.station) {
                self.report(&here, "station", format!("no crafting station with id {}", recipe.station));
            }
            self.item(&here, "output.item", recipe.output.item);
            self.positive(&here, "output.amount", recipe.output.amount.into());
            if recipe.ingredients.is_empty() {
                self.report(&here, "ingredients", "a recipe needs at least one ingredient");
            }
            for (i, Ingredient { input, amount }) in recipe.ingredients.iter().enumerate() {
                match *input {
                    Input::Item(id) => {
                        self.item(&here, &format!("ingredients[{i}].item"), id);
                    }
                    Input::Group(id) if !self.groups.contains_key(&id) => {
                        self.report(
                            &here,
                            format!("ingredients[{i}].group"),
                            format!("no ingredient group with id {id}"),
                        );
                    }
                    Input::Group(_) => {}
                }
                self.positive(&here, &format!("ingredients[{i}].amount"), (*amount).into());
            }
            self.positive(&here, "craft_minutes", recipe.craft_minutes.into());
            if let Some(aging) = &recipe.aging_days {
                self.aging_days(&here, recipe.output.item, aging);
            }
            let unlock = match &recipe.unlock {
                Unlock::Default => None,
                Unlock::Reputation { key } => Some((RecordType::Reputation, key)),
                Unlock::Perk { key } => Some((RecordType::Perk, key)),
                Unlock::Quest { key } => Some((RecordType::Quest, key)),
                Unlock::Talent { key } => Some((RecordType::Talent, key)),
                Unlock::Mission { key } => Some((RecordType::Mission, key)),
            };
            if let Some((kind, key)) = unlock {
                self.key(&here, "unlock.key", kind, key);
            }
            if let Some(newer) = recipe.replaced_by {
                match outputs.get(&newer) {
                    None => self.report(&here, "replaced_by", format!("no recipe with id {newer}")),
                    Some(_) if newer == recipe.id => {
                        self.report(&here, "replaced_by", "a recipe cannot replace itself")
                    }
                    Some(&output) if output != recipe.output.item => self.report(
                        &here,
                        "replaced_by",
                        format!(
                            "recipe {newer} makes item {output}, not this recipe's output {}",
                            recipe.output.item
                        ),
                    ),
                    Some(_) => {}
                }
            }
        }
        self.replacement_cycles();
    }

    fn aging_days(&mut self, here: &Here, output: ItemId, aging: &AgingDays) {
        let ranks = aging.ranks();
        if ranks[0].1 == 0 {
            self.report(here, "aging_days.young", "must be at least 1");
        }
        for pair in ranks.windows(2) {
            let ((shorter, before), (rank, days)) = (pair[0], pair[1]);
            if days <= before {
                self.report(
                    here,
                    format!("aging_days.{rank}"),
                    format!("{days} days does not come after `{shorter}` ({before} days)"),
                );
            }
        }
        if self.items.get(&output).is_some_and(|item| !item.can_be_aged) {
            self.report(
                here,
                "aging_days",
                format!("the output, item {output}, cannot be aged (`can_be_aged` is false)"),
            );
        }
    }

    fn replacement_cycles(&mut self) {
        let data = self.data;
        let next: HashMap<RecordId, RecordId> =
            data.recipes.iter().filter_map(|r| Some((r.id, r.replaced_by?))).collect();
        for recipe in &data.recipes {
            let mut seen = HashSet::from([recipe.id]);
            let mut at = recipe.id;
            while let Some(&newer) = next.get(&at) {
                if newer == recipe.id {
                    let here = here_id(RecordType::Recipe, recipe.id, Some(&recipe.slug));
                    self.report(&here, "replaced_by", "the chain of replacements leads back to this recipe");
                    break;
                }
                if !seen.insert(newer) {
                    break;
                }
                at = newer;
            }
        }
    }

    fn groups(&mut self) {
        let data = self.data;
        self.unique_ids(
            RecordType::IngredientGroup,
            data.ingredient_groups.iter().map(|r| (r.id, Some(&r.slug))),
        );
        for group in &data.ingredient_groups {
            let here = here_id(RecordType::IngredientGroup, group.id, Some(&group.slug));
            self.text(&here, "name_key", &group.name_key);
            if group.members.is_empty() {
                self.report(&here, "members", "a group needs at least one member");
            }
            for (i, &member) in group.members.iter().enumerate() {
                self.item(&here, &format!("members[{i}]"), member);
            }
            if let Some(repeated) = first_repeat(&group.members) {
                self.report(&here, "members", format!("item {repeated} is listed twice"));
            }
        }
    }

    fn stations(&mut self) {
        let data = self.data;
        self.unique_ids(
            RecordType::CraftingStation,
            data.crafting_stations.iter().map(|r| (r.id, Some(&r.slug))),
        );
        for station in &data.crafting_stations {
            let here = here_id(RecordType::CraftingStation, station.id, Some(&station.slug));
            self.text(&here, "name_key", &station.name_key);
            if let Some(key) = &station.description_key {
                self.text(&here, "description_key", key);
            }
        }
    }

    fn crops(&mut self) {
        let data = self.data;
        self.unique_ids(RecordType::Crop, data.crops.iter().map(|r| (r.id, Some(&r.slug))));
        for crop in &data.crops {
            let here = here_id(RecordType::Crop, crop.id, Some(&crop.slug));
            self.text(&here, "name_key", &crop.name_key);
            self.item_of_kind(&here, "seed", crop.seed, ItemKind::Seed);
            self.item(&here, "harvest.item", crop.harvest.item);
            self.positive(&here, "harvest.min", crop.harvest.min.into());
            if crop.harvest.max < crop.harvest.min {
                self.report(&here, "harvest.max", "must be at least `harvest.min`");
            }
            self.seasons(&here, "seasons", &crop.seasons, false);
            self.positive(&here, "days_to_grow", crop.days_to_grow.into());
            match (crop.reusable, crop.regrow_days) {
                (true, None) => self.report(&here, "regrow_days", "a reusable crop needs `regrow_days`"),
                (false, Some(_)) => {
                    self.report(&here, "regrow_days", "only a reusable crop has `regrow_days`")
                }
                (true, Some(days)) => self.positive(&here, "regrow_days", days.into()),
                (false, None) => {}
            }
        }
    }

    fn shops(&mut self) {
        let data = self.data;
        self.unique_ids(RecordType::Shop, data.shops.iter().map(|r| (r.id, Some(&r.slug))));
        for shop in &data.shops {
            let here = here_id(RecordType::Shop, shop.id, Some(&shop.slug));
            self.text(&here, "name_key", &shop.name_key);
            self.shopkeeper(&here, "shopkeeper", shop.shopkeeper);
            if shop.opens_at > 23 {
                self.report(&here, "opens_at", "an hour from 0 to 23");
            }
            if !(1..=24).contains(&shop.closes_at) || shop.closes_at <= shop.opens_at {
                self.report(&here, "closes_at", "an hour from 1 to 24, after `opens_at`");
            }
            let mut listed = HashSet::new();
            for (i, entry) in shop.catalogue.iter().enumerate() {
                self.item(&here, &format!("catalogue[{i}].item"), entry.item);
                if !listed.insert(entry.item) {
                    self.report(
                        &here,
                        format!("catalogue[{i}].item"),
                        format!("item {} is listed twice", entry.item),
                    );
                }
                self.positive(&here, &format!("catalogue[{i}].price"), entry.price);
                self.seasons(&here, &format!("catalogue[{i}].seasons"), &entry.seasons, true);
            }
        }
    }

    fn shopkeepers(&mut self) {
        let data = self.data;
        self.unique_ids(RecordType::Shopkeeper, data.shopkeepers.iter().map(|r| (r.id, Some(&r.slug))));
        for keeper in &data.shopkeepers {
            let here = here_id(RecordType::Shopkeeper, keeper.id, Some(&keeper.slug));
            self.text(&here, "name_key", &keeper.name_key);
            self.text(&here, "title_key", &keeper.title_key);
            self.game_day(&here, "birthday", &keeper.birthday);
        }
    }

    fn fish(&mut self) {
        let data = self.data;
        self.unique_ids(RecordType::Fish, data.fish.iter().map(|r| (r.id, None)));
        let mut items = HashSet::new();
        for fish in &data.fish {
            let here = here_id(RecordType::Fish, fish.id, None);
            self.item_of_kind(&here, "item", fish.item, ItemKind::Fish);
            if !items.insert(fish.item) {
                self.report(&here, "item", format!("item {} already has a fish record", fish.item));
            }
            self.seasons(&here, "seasons", &fish.seasons, false);
        }
    }

    fn progression(&mut self) {
        let data = self.data;
        let mut keys = HashSet::new();
        for quest in &data.quests {
            let here = self.progression_record(quest, &mut keys);
            if let Some(giver) = quest.giver {
                self.shopkeeper(&here, "giver", giver);
            }
            self.requires(&here, RecordType::Quest, &quest.key, &quest.requires);
            self.item_amounts(&here, "objectives", &quest.objectives);
            self.rewards(&here, &quest.rewards);
        }
        let mut keys = HashSet::new();
        for perk in &data.perks {
            let here = self.progression_record(perk, &mut keys);
            if !(1..=5).contains(&perk.tier) {
                self.report(&here, "tier", "a tier from 1 to 5");
            }
            self.positive(&here, "cost", perk.cost.into());
            self.requires(&here, RecordType::Perk, &perk.key, &perk.requires);
        }
        let mut keys = HashSet::new();
        for spell in &data.spells {
            self.progression_record(spell, &mut keys);
        }
        let mut keys = HashSet::new();
        for talent in &data.talents {
            let here = self.progression_record(talent, &mut keys);
            self.positive(&here, "max_rank", talent.max_rank.into());
            self.requires(&here, RecordType::Talent, &talent.key, &talent.requires);
        }
        let mut levels = HashSet::new();
        let mut by_level: Vec<_> = data.reputation.iter().enumerate().collect();
        by_level.sort_by_key(|(_, r)| r.level);
        // Each milestone whose points do not rise over the level below it (by its position in the
        // file, as keys may repeat), with that level.
        let not_rising: HashMap<usize, &ReputationMilestone> = by_level
            .windows(2)
            .filter(|pair| pair[1].1.level != pair[0].1.level && pair[1].1.points <= pair[0].1.points)
            .map(|pair| (pair[1].0, pair[0].1))
            .collect();
        let mut keys = HashSet::new();
        for (position, milestone) in data.reputation.iter().enumerate() {
            let here = self.progression_record(milestone, &mut keys);
            self.positive(&here, "level", milestone.level.into());
            if !levels.insert(milestone.level) {
                self.report(
                    &here,
                    "level",
                    format!("level {} is used by an earlier milestone", milestone.level),
                );
            }
            if let Some(below) = not_rising.get(&position) {
                self.report(
                    &here,
                    "points",
                    format!(
                        "level {} needs more points than level {} ({})",
                        milestone.level, below.level, below.points
                    ),
                );
            }
            self.rewards(&here, &milestone.rewards);
        }
        let mut keys = HashSet::new();
        for mission in &data.missions {
            let here = self.progression_record(mission, &mut keys);
            self.positive(&here, "duration_days", mission.duration_days.into());
            if let Some(level) = mission.min_reputation
                && !self.reputation_levels.contains(&level)
            {
                self.report(&here, "min_reputation", format!("no reputation milestone has level {level}"));
            }
            self.rewards(&here, &mission.rewards);
        }
        let mut keys = HashSet::new();
        for letter in &data.letters {
            let here = self.progression_record(letter, &mut keys);
            if let Some(sender) = letter.sender {
                self.shopkeeper(&here, "sender", sender);
            }
            match &letter.trigger {
                LetterTrigger::Day { season, day } => {
                    self.game_day(&here, "trigger", &GameDay { season: *season, day: *day });
                }
                LetterTrigger::Reputation { key } => {
                    self.key(&here, "trigger.key", RecordType::Reputation, key)
                }
                LetterTrigger::Quest { key } => self.key(&here, "trigger.key", RecordType::Quest, key),
            }
            self.item_amounts(&here, "attachments", &letter.attachments);
        }
    }

    /// Checks what every progression record has (a key unique in its file, its texts) and returns
    /// where the record's problems are reported; `seen` holds the keys of the file's earlier records.
    fn progression_record<R: ProgressionRecord>(
        &mut self,
        record: &'a R,
        seen: &mut HashSet<&'a ProgressionKey>,
    ) -> Here {
        let key = record.key();
        let here = here_key(R::TYPE, key);
        if !seen.insert(key) {
            self.report(
                &here,
                "key",
                format!("key {:?} is used by an earlier record of this file", key.as_str()),
            );
        }
        self.text(&here, "name_key", record.name_key());
        self.text(&here, "description_key", record.description_key());
        here
    }

    fn requires(&mut self, here: &Here, kind: RecordType, own: &ProgressionKey, requires: &[ProgressionKey]) {
        for (i, key) in requires.iter().enumerate() {
            if key == own {
                self.report(here, format!("requires[{i}]"), "a record cannot require itself");
            } else {
                self.key(here, &format!("requires[{i}]"), kind, key);
            }
        }
    }

    /// Finds recipes that need their own output, directly or through other recipes and groups.
    /// The graph's nodes are items; an item points at every item that some recipe making it needs
    /// (each member of a group counts).
    fn recipe_cycles(&mut self) {
        let data = self.data;
        let mut needs: HashMap<ItemId, Vec<(ItemId, RecordId)>> = HashMap::new();
        for recipe in &data.recipes {
            for ingredient in &recipe.ingredients {
                let inputs: &[ItemId] = match &ingredient.input {
                    Input::Item(id) => std::slice::from_ref(id),
                    Input::Group(id) => self.groups.get(id).copied().unwrap_or_default(),
                };
                for &input in inputs {
                    needs.entry(recipe.output.item).or_default().push((input, recipe.id));
                }
            }
        }
        for list in needs.values_mut() {
            list.sort_unstable();
            list.dedup();
        }

        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            Open,
            Done,
        }
        let mut marks: HashMap<ItemId, Mark> = HashMap::new();
        let mut starts: Vec<ItemId> = needs.keys().copied().collect();
        starts.sort_unstable();
        let mut reported = HashSet::new();
        for start in starts {
            if marks.contains_key(&start) {
                continue;
            }
            // Iterative depth-first search; `path` holds (item, recipe that led here, next edge).
            let mut path: Vec<(ItemId, Option<RecordId>, usize)> = vec![(start, None, 0)];
            marks.insert(start, Mark::Open);
            while let Some(&mut (item, _, ref mut next)) = path.last_mut() {
                let edges = needs.get(&item).map(Vec::as_slice).unwrap_or_default();
                let Some(&(input, recipe)) = edges.get(*next) else {
                    marks.insert(item, Mark::Done);
                    path.pop();
                    continue;
                };
                *next += 1;
                match marks.get(&input) {
                    None => {
                        marks.insert(input, Mark::Open);
                        path.push((input, Some(recipe), 0));
                    }
                    Some(Mark::Open) => {
                        let from = path.iter().position(|(i, _, _)| *i == input).unwrap_or(0);
                        let mut recipes: Vec<RecordId> =
                            path[from + 1..].iter().filter_map(|(_, r, _)| *r).collect();
                        recipes.push(recipe);
                        let items: Vec<String> = path[from..].iter().map(|(i, _, _)| i.to_string()).collect();
                        if reported.insert(recipe) {
                            let slug = data.recipes.iter().find(|r| r.id == recipe).map(|r| &r.slug);
                            let here = here_id(RecordType::Recipe, recipe, slug);
                            self.report(
                                &here,
                                "ingredients",
                                format!(
                                    "the recipe graph has a cycle: item {} is needed to make itself (items {} -> {input}, through recipes {:?})",
                                    input,
                                    items.join(" -> "),
                                    recipes
                                ),
                            );
                        }
                    }
                    Some(Mark::Done) => {}
                }
            }
        }
    }
}

fn here_id(kind: RecordType, id: RecordId, slug: Option<&Slug>) -> Here {
    let record = match slug {
        Some(slug) => format!("id {id} ({slug})"),
        None => format!("id {id}"),
    };
    Here { file: format!("{kind}.json"), record }
}

fn here_key(kind: RecordType, key: &ProgressionKey) -> Here {
    Here { file: format!("{kind}.json"), record: format!("key {:?}", key.as_str()) }
}

fn first_repeat<T: Eq + std::hash::Hash + Copy>(values: &[T]) -> Option<T> {
    let mut seen = HashSet::new();
    values.iter().copied().find(|v| !seen.insert(*v))
}
