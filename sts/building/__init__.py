"""The session-building layer every converter feeds (see ``/CONTRIBUTING.md``).

- `SessionBuilder` (`session`): messages, tool calls and results, ids, titles;
- `sts.building.content`: content dialects several sources share (OpenAI parts, Anthropic
  blocks);
- `sts.building.coerce`: reading loosely typed source values;
- `sts.building.vocabulary`: source words → canonical values (stop reasons);
- `ReadContext` and `Options` (`context`): what a read gets besides its stream.
"""

from sts.building.calls import RENAME, CallLedger
from sts.building.context import Options, ReadContext, UnknownOption
from sts.building.session import SessionBuilder, TitleRank, prompt_title, shorten

__all__ = [
    "RENAME",
    "CallLedger",
    "Options",
    "ReadContext",
    "SessionBuilder",
    "TitleRank",
    "UnknownOption",
    "prompt_title",
    "shorten",
]
