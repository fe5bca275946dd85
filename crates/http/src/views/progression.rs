//! Progression records (quests, perks, spells, talents, reputation, missions, letters) as `Document` in
//! lists and `DocumentDetail` when single, and the changes between game versions as `VersionChange`.
//! Every reference to another record carries its localized name, so no second request is needed.

use tapster_domain::{
    Letter, LetterTrigger, Mission, Perk, ProgressionKey, Quest, RecordId, RecordType, ReputationMilestone,
    Rewards, Spell, Talent,
};
use tapster_store::{Catalog, Change, ProgressionSet};
use tapster_wire::{
    self as wire, Detail, Document, DocumentDetail, LetterAttributes, MissionAttributes, PerkAttributes,
    QuestAttributes, ReputationAttributes, SpellAttributes, TalentAttributes, VersionChange,
};

use super::*;
use crate::envelope::Localizer;

/// What a person calls one record of the progression type `kind` (`reputation milestone`).
pub(crate) fn noun(kind: RecordType) -> &'static str {
    match kind {
        RecordType::Reputation => "reputation milestone",
        other => other.singular(),
    }
}

/// A progression record type the API renders: its kind, its attributes, and the variant of
/// [`DocumentDetail`] that holds them.
pub(crate) trait Documented: ProgressionSet {
    type Attributes;
    const DETAIL: fn(Detail<Self::Attributes>) -> DocumentDetail;

    /// The type-specific fields; `at` is the JSON Pointer of the `attributes` object.
    fn attributes(&self, loc: &mut Localizer<'_>, at: &str) -> Self::Attributes;
}

/// A progression record as lists show it; `at` is the JSON Pointer of this object in the body.
pub(crate) fn document<R: Documented>(loc: &mut Localizer<'_>, record: &R, at: &str) -> Document {
    let name = loc.text(record.name_key(), || format!("{at}/name"));
    let description = loc.text(record.description_key(), || format!("{at}/summary"));
    Document {
        kind: wire::DocumentType::parse(R::TYPE.singular()),
        key: record.key().to_string(),
        name,
        summary: first_sentence(&description).to_owned(),
        introduced_in: introduced(loc.catalog, R::TYPE, record.key()),
    }
}

/// One progression record, whole, at `/data`.
pub(crate) fn document_detail<R: Documented>(loc: &mut Localizer<'_>, record: &R) -> DocumentDetail {
    R::DETAIL(Detail {
        key: record.key().to_string(),
        name: loc.text(record.name_key(), || "/data/name".into()),
        description: loc.text(record.description_key(), || "/data/description".into()),
        introduced_in: introduced(loc.catalog, R::TYPE, record.key()),
        attributes: record.attributes(loc, "/data/attributes"),
    })
}

impl Documented for Quest {
    type Attributes = QuestAttributes;
    const DETAIL: fn(Detail<QuestAttributes>) -> DocumentDetail = DocumentDetail::Quest;

    fn attributes(&self, loc: &mut Localizer<'_>, at: &str) -> QuestAttributes {
        QuestAttributes {
            giver: self.giver.map(|id| shopkeeper_ref(loc, id, &format!("{at}/giver"))),
            requires: linked::<Quest>(loc, &self.requires, &format!("{at}/requires")),
            objectives: item_stacks(loc, &self.objectives, &format!("{at}/objectives")),
            rewards: rewards(loc, &self.rewards, &format!("{at}/rewards")),
        }
    }
}

impl Documented for Perk {
    type Attributes = PerkAttributes;
    const DETAIL: fn(Detail<PerkAttributes>) -> DocumentDetail = DocumentDetail::Perk;

    fn attributes(&self, loc: &mut Localizer<'_>, at: &str) -> PerkAttributes {
        PerkAttributes {
            tier: self.tier,
            cost: self.cost,
            requires: linked::<Perk>(loc, &self.requires, &format!("{at}/requires")),
        }
    }
}

impl Documented for Spell {
    type Attributes = SpellAttributes;
    const DETAIL: fn(Detail<SpellAttributes>) -> DocumentDetail = DocumentDetail::Spell;

    fn attributes(&self, _loc: &mut Localizer<'_>, _at: &str) -> SpellAttributes {
        SpellAttributes {
            school: self.school.to_string(),
            mana_cost: self.mana_cost,
            cooldown_seconds: self.cooldown_seconds,
        }
    }
}

impl Documented for Talent {
    type Attributes = TalentAttributes;
    const DETAIL: fn(Detail<TalentAttributes>) -> DocumentDetail = DocumentDetail::Talent;

    fn attributes(&self, loc: &mut Localizer<'_>, at: &str) -> TalentAttributes {
        TalentAttributes {
            tree: self.tree.to_string(),
            max_rank: self.max_rank,
            requires: linked::<Talent>(loc, &self.requires, &format!("{at}/requires")),
        }
    }
}

impl Documented for ReputationMilestone {
    type Attributes = ReputationAttributes;
    const DETAIL: fn(Detail<ReputationAttributes>) -> DocumentDetail = DocumentDetail::Reputation;

    fn attributes(&self, loc: &mut Localizer<'_>, at: &str) -> ReputationAttributes {
        ReputationAttributes {
            level: self.level,
            points: self.points,
            rewards: rewards(loc, &self.rewards, &format!("{at}/rewards")),
        }
    }
}

impl Documented for Mission {
    type Attributes = MissionAttributes;
    const DETAIL: fn(Detail<MissionAttributes>) -> DocumentDetail = DocumentDetail::Mission;

    fn attributes(&self, loc: &mut Localizer<'_>, at: &str) -> MissionAttributes {
        let catalog = loc.catalog;
        let min_reputation = self
            .min_reputation
            .and_then(|level| catalog.reputation_milestone_at(level))
            .map(|milestone| milestone_ref(loc, milestone, &format!("{at}/min_reputation")));
        MissionAttributes {
            duration_days: self.duration_days,
            min_reputation,
            rewards: rewards(loc, &self.rewards, &format!("{at}/rewards")),
        }
    }
}

impl Documented for Letter {
    type Attributes = LetterAttributes;
    const DETAIL: fn(Detail<LetterAttributes>) -> DocumentDetail = DocumentDetail::Letter;

    fn attributes(&self, loc: &mut Localizer<'_>, at: &str) -> LetterAttributes {
        let sender = self.sender.map(|id| shopkeeper_ref(loc, id, &format!("{at}/sender")));
        let pointer = || format!("{at}/trigger/name");
        let trigger = match &self.trigger {
            LetterTrigger::Day { season, day } => {
                wire::LetterTrigger::Day { season: wire::Season::parse(season.as_str()), day: *day }
            }
            LetterTrigger::Reputation { key } => wire::LetterTrigger::Reputation {
                key: key.to_string(),
                name: name_of::<ReputationMilestone>(loc, key, pointer),
            },
            LetterTrigger::Quest { key } => {
                wire::LetterTrigger::Quest { key: key.to_string(), name: name_of::<Quest>(loc, key, pointer) }
            }
        };
        LetterAttributes {
            sender,
            trigger,
            attachments: item_stacks(loc, &self.attachments, &format!("{at}/attachments")),
        }
    }
}

/// The localized name of the `R` named `key`; the key itself if the version lacks it (import forbids that).
fn name_of<R: ProgressionSet>(
    loc: &mut Localizer<'_>,
    key: &ProgressionKey,
    at: impl FnOnce() -> String,
) -> String {
    match loc.catalog.progression_record::<R>(key) {
        Some(record) => loc.text(record.name_key(), at),
        None => key.to_string(),
    }
}

/// Records of type `R` by key, named; `at` is the pointer of the array.
fn linked<R: ProgressionSet>(
    loc: &mut Localizer<'_>,
    keys: &[ProgressionKey],
    at: &str,
) -> Vec<ProgressionRef> {
    let catalog = loc.catalog;
    let found: Vec<&R> = keys.iter().filter_map(|key| catalog.progression_record::<R>(key)).collect();
    found
        .into_iter()
        .enumerate()
        .map(|(i, r)| progression_ref(loc, r.key(), r.name_key(), &format!("{at}/{i}")))
        .collect()
}

/// Rewards with every item and recipe named; `at` is the pointer of the object.
fn rewards(loc: &mut Localizer<'_>, rewards: &Rewards, at: &str) -> wire::Rewards {
    let catalog = loc.catalog;
    let items = item_stacks(loc, &rewards.items, &format!("{at}/items"));
    let recipes: Vec<_> = rewards.recipes.iter().filter_map(|id| catalog.recipe_by_id(*id)).collect();
    let recipes = recipes
        .into_iter()
        .enumerate()
        .map(|(i, r)| record_ref(loc, r.id, r.slug.as_str(), &r.name_key, &format!("{at}/recipes/{i}")))
        .collect();
    wire::Rewards { copper: price_of(rewards.copper), reputation: rewards.reputation, items, recipes }
}

/// The first sentence of `text`: up to a sentence end (`.`, `!` or `?` before a space, or a
/// full-width stop such as `。`), or the whole text when it has no earlier sentence end.
pub(crate) fn first_sentence(text: &str) -> &str {
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = i + c.len_utf8();
        let ends = match c {
            '.' | '!' | '?' => chars.peek().is_some_and(|(_, next)| next.is_whitespace()),
            '。' | '！' | '？' | '।' | '؟' | '۔' => true,
            _ => false,
        };
        if ends {
            return &text[..end];
        }
    }
    text
}

/// A change between two versions; `named_in` is the version whose record names it, `at` the pointer
/// of this object.
pub(crate) fn version_change(
    loc: &mut Localizer<'_>,
    change: &Change,
    named_in: &Catalog,
    at: &str,
) -> VersionChange {
    let (id, key) = if change.kind.is_progression() {
        (None, Some(change.record_key.clone()))
    } else {
        match change.record_key.parse::<RecordId>() {
            Ok(id) => (Some(id), None),
            Err(_) => (None, Some(change.record_key.clone())),
        }
    };
    let label = named_in.record_label(change.kind, &change.record_key);
    let name = label.and_then(|label| named_in.text(label.name_key, loc.lang)).map(|text| {
        loc.note(text.language, || format!("{at}/name"));
        text.text.to_owned()
    });
    VersionChange {
        kind: wire::ChangeType::parse(change.kind.plural()),
        id,
        key,
        slug: label.and_then(|l| l.slug).map(ToString::to_string),
        // Import guarantees every record a name in English, the fallback of every language.
        name: name.unwrap_or_default(),
        change: wire::ChangeKind::parse(change.change.as_str()),
        fields: change.fields.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_is_the_first_sentence() {
        let cases = [
            ("Weaving yields more cloth. Builds on the previous rank.", "Weaving yields more cloth."),
            ("Makes flowers bloom out of season.", "Makes flowers bloom out of season."),
            ("No stop at all", "No stop at all"),
            ("Version 0.7 is out! Enjoy.", "Version 0.7 is out!"),
            ("Really?! Yes.", "Really?!"),
            ("酒場はまだ始まったばかりだ。季節が許したら", "酒場はまだ始まったばかりだ。"),
            ("Ends with a dot.", "Ends with a dot."),
            ("", ""),
        ];
        for (text, summary) in cases {
            assert_eq!(first_sentence(text), summary, "{text:?}");
        }
    }
}
