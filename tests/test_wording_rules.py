"""The offline reasoner's last-resort wording rules are data with provenance, and none of
them decides against the knowledge docs more often than with them."""

import pytest

from agent.knowledge import load_docs
from agent.reasoners.wording import WORDING_RULES, first_rule
from agent.schema import SUBCATEGORIES


@pytest.mark.parametrize("rule", WORDING_RULES, ids=lambda r: f"{r.category}/{r.subcategory}")
def test_every_rule_decides_its_own_real_example(rule):
    assert rule.subcategory in SUBCATEGORIES[rule.category]
    assert rule.source
    assert first_rule(rule.example) is rule


def test_no_rule_decides_against_the_docs_more_often_than_with_them():
    examples = [(d.category, d.subcategory, s.example) for d in load_docs() for s in d.signatures]
    for rule in WORDING_RULES:
        decided = [(c, s) for c, s, text in examples if first_rule(text) is rule]
        agree = sum(1 for c, s in decided if (c, s) == (rule.category, rule.subcategory))
        assert decided, f"{rule.regex.pattern} fires on no public example line"
        assert agree / len(decided) >= 0.4, f"{rule.regex.pattern}: agrees on {agree}/{len(decided)} doc examples"
