"""The vocabulary of a game's rules: families, rule modules, decisions, the rules table.

- A :class:`Family` says what a game is made of, with class attributes and hooks
  (python-chess's variants are the model): its deck, hand size, matching rule, deal,
  round end, and its rule modules.  A preset is configuration of a family.
- A :class:`Module` plays one option (or group of cards): it declares its options and
  edits the :class:`Rules` of a game that has them.
- :class:`Rules` is the table the turn machinery consults (built once per preset, seat
  count and options by ``catalog.build_rules``): the deck, what each rank does when
  played (an *effect*: it may push decisions, and returns its intent, how many seats
  play moves on), what parameters a play takes, what may be stacked on a penalty, the
  first card's effects, the windows, the scoring.
- Decisions (:class:`Decision`) and windows (:class:`Window`) are what the game waits
  for, below.

Decisions: the state keeps a stack of them (``State.stack``, top last); with the stack
empty, the seat in turn owes an ordinary turn (the family's turn decision,
``Rules.turn``).  A card effect that needs an answer (a penalty to accept, a colour to
name) pushes one; answering pops it.  Who decides is the decision's ``seat``; where play
resumes is the state's ``current`` seat: the two are separate (a decision may be owed
by a seat not in turn).

A decision *type* is a subclass, registered once under its ``name`` (the ``type`` of
its saved form and of the view's ``pending``), declaring:

- who owes it (``seat``: one seat for the stack's decisions; a window says which seats
  owe it, if any, with ``owed_by``);
- its legal actions (``moves``), in the order they are listed;
- how each action applies (``handlers``: action type -> function);
- its public description (``public``: the view's ``pending``; None shows nothing);
- its explanation when an action is refused (``explain``): the legal actions and the
  refusals come from the same per-decision rules;
- what the timer does when it expires (``expire``) and under which deadline kind
  (``timer``: ``"turn"``, a window's own, or None: no deadline).

Windows (:class:`Window`) are decisions several seats may act on at once, next to the
stack: the UNO call/catch window, jump-in, later the buzz.  Each has its close rule
(``on_act``: what other actions close it).  A rule module's window that is always
available (jump-in) is *standing*: one instance in the rules, its data (if any) in the
state; a window opened by an event with data of its own (a buzz window) is *stored*
in ``State.windows``.

Decisions are immutable values (a changed decision is a new one), so copying a state
copies the stack as a list of references.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, NamedTuple, Sequence

from .actions import shape_of
from .cards import Deck
from .config import OptionSpec
from .state import DECISION_LOADERS, State

Events = Any  # list[dict], or None on the fast path (no event is built)


class Play(NamedTuple):
    """A card being played, as the effect of its rank sees it."""

    seat: int
    card: int
    move: tuple  # the Action
    stack: int  # penalty already pending on the player (stacking), 0 if none
    prev_color: str | None  # colour in force before this card
    #: the decision the card was played in answer to (popped from the stack), None for a
    #: card played in an ordinary turn or jumped in: an effect that answers an effect (a
    #: Renvoi sending a +2 back) reads what it answers here
    answered: Any = None


#: (state, rules, play, events) -> how many seats play moves on from the player (its
#: intent: 1 the next player, 2 skip one, 0 this player continues); it may push decisions
Effect = Callable[["State", "Rules", Play, Events], int]
#: (state, rules, play, events) -> None: what a rank does as the player's last card; it
#: may return the seat that wins the round instead of the player (a last UNO card, whose
#: player receives a hand: ``uno_card``)
Finish = Callable[["State", "Rules", Play, Events], "int | None"]
#: (rules, seat, card, hand_size) -> the extra fields (color, target_seat) of each distinct
#: play of that card; a pure function of its arguments (the moves are cached)
ParamFn = Callable[["Rules", int, int, int], Sequence[dict]]
#: (state, rules, events) -> how many seats from the dealer the first player sits; may push
FirstCard = Callable[["State", "Rules", Events], int]
#: (state, rules, seat, events) -> None: resolve a challenge of the pending penalty
Challenge = Callable[["State", "Rules", int, Events], None]
#: (state, rules, decision, seat, out) -> None: append the moves a module adds to those
#: of a decision type it does not own (e.g. a Renvoi in answer to a penalty); the
#: decision's handlers must accept their action type
Answer = Callable[["State", "Rules", Any, int, list], None]


class Scoring(ABC):
    """How a round is scored and when the game is over."""

    name: str

    @abstractmethod
    def round_points(self, state: State, rules: Rules, winner: int) -> list[int]:
        """Points each seat scores for the round ``winner`` just won."""

    @abstractmethod
    def game_winner(self, state: State, rules: Rules) -> int | None:
        """The seat that has won the game after the last round, if any."""

    def game_winners(self, state: State, rules: Rules) -> list[int] | None:
        """Every seat that has won the game after the last round (a team's seats, a
        shared win), if it is over; by default ``game_winner``'s seat alone."""
        winner = self.game_winner(state, rules)
        return None if winner is None else [winner]

    def after_round(self, state: State, rules: Rules, ev: Events) -> None:
        """What happens once a round's points are added, before the end of the game is
        judged (``scoring: elimination`` eliminates the seats at the target)."""

    #: whether a higher total ranks higher (``standings``: the seats that did not win)
    higher_is_better: ClassVar[bool] = True

    def standings(self, state: State, rules: Rules) -> list[int]:
        """Each seat's place in the finished game (0: first; equal places tie): the
        winners first, then the others by total (``higher_is_better``)."""
        sign = -1 if self.higher_is_better else 1
        return places([(s not in state.winners, sign * state.scores[s]) for s in range(state.seats)])


def places(keys: Sequence[Any]) -> list[int]:
    """The place of each of ``keys`` (lower keys first): how many keys are strictly
    lower, so that equal keys share a place (0, 1, 1, 3)."""
    return [sum(other < key for other in keys) for key in keys]


#: (state, rules, seat, move, events, decision) -> None: how an action applies
Handler = Callable[["State", "Rules", int, tuple, Any, Any], None]
#: every decision type (stack decisions and stored windows) by name
DECISIONS: dict[str, type[Decision]] = {}


class Decision(ABC):
    """Base of the decision types (see the module docstring): a type must say what its
    owner may do (``moves``) and what the timer does for it (``expire``)."""

    __slots__ = ("seat",)
    #: registry key and the ``type`` of the saved form and of ``pending``
    name: ClassVar[str] = ""
    #: saved fields after ``seat``, in order (``to_dict`` / ``from_dict``); a None value
    #: is left out of the saved form
    fields: ClassVar[tuple[str, ...]] = ()
    #: action type -> how it applies (filled by the module that plays the decision)
    handlers: ClassVar[dict[str, Handler]] = {}
    #: the deadline kind while this decision is owed (None: no deadline)
    timer: ClassVar[str | None] = "turn"
    #: while on top, its owner also has the turn's extras (calling UNO ahead...)
    turn_extras: ClassVar[bool] = True
    #: while on top, seats other than its owner may act in windows (jump-in...)
    windows_open: ClassVar[bool] = True
    #: the penalty a card played in answer carries on (stacking); 0 for most decisions
    carry: ClassVar[int] = 0
    #: whether ``public`` shows it (the view's ``pending``); an ordinary turn is not shown
    shown: ClassVar[bool] = True
    #: whether it is ever on the stack (saved, loaded by its name: registered in
    #: ``DECISIONS``); a family's ordinary turn (``Rules.turn``) is not, and every
    #: family's is named ``"turn"`` (the name ``owed`` gives it)
    on_stack: ClassVar[bool] = True
    #: JSON schema of each field ``public`` adds to ``type`` and ``seat`` (all present):
    #: the API schema's typed variant of ``pending`` for this decision type
    public_schema: ClassVar[dict[str, dict]] = {}

    seat: int

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls.handlers = dict(cls.handlers)  # each type its own table
        if cls.name and cls.on_stack:
            if cls.name in DECISIONS:
                raise ValueError(f"decision type {cls.name!r} declared twice")
            DECISIONS[cls.name] = cls
            DECISION_LOADERS[cls.name] = cls.from_dict

    # -- what ---------------------------------------------------------------------------
    @abstractmethod
    def moves(self, state: State, rules: Rules, seat: int, out: list) -> None:
        """Append ``seat``'s legal moves (``Action`` keys) to ``out``, in listing order."""

    def explain(self, state: State, rules: Rules, seat: int, move: tuple) -> str | None:
        """Why ``move`` (of an action type this decision accepts) is refused now, or
        None to let the action type's own refusal speak."""
        return None

    def public(self, state: State) -> dict | None:
        """The view's ``pending`` while this decision is on top (secrets left out)."""
        return {"type": self.name, "seat": self.seat}

    @abstractmethod
    def expire(self, state: State, rules: Rules, seat: int, ev: Events) -> None:
        """What the server does for ``seat`` when its deadline passes: one step (the
        timer repeats it while the seat still owes a decision of the same round)."""

    def seconds(self, state: State) -> float | None:
        """How long its owner has for it when its deadline is its own (a window's length
        set by an option, e.g. ``buzzer_seconds``): when it passes, the server applies
        the ``expire`` system action for the seat (``core.expire_own``).  None (the
        default): the deadline is the turn's (the server's ``turn_seconds``, then the
        ``timeout`` system action), or there is none."""
        return None

    def redeal(self, state: State, rules: Rules, observer: int) -> Decision:
        """This decision after the cards ``observer`` cannot see were dealt again (an
        observation: ``observation.observe``): hidden data made consistent with them."""
        return self

    # -- saved form ---------------------------------------------------------------------
    def to_dict(self) -> dict:
        out: dict[str, Any] = {"type": self.name, "seat": self.seat}
        for f in self.fields:
            v = getattr(self, f)
            if v is not None:
                out[f] = list(v) if isinstance(v, tuple) else v
        return out

    @classmethod
    def from_dict(cls, d: dict) -> Decision:
        obj = cls.__new__(cls)
        obj.seat = d["seat"]
        for f in cls.fields:
            v = d.get(f)
            setattr(obj, f, tuple(v) if isinstance(v, list) else v)
        return obj

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.to_dict() == other.to_dict()  # type: ignore[union-attr]

    def __hash__(self) -> int:
        return hash((self.name, self.seat))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_dict()})"


class Window(ABC):
    """A decision several seats may act on at once (see the module docstring): a type
    must list its moves (``moves``) and apply them (``apply``).

    Standing windows are instances in ``Rules.windows``; stored ones are also
    :class:`Decision` instances saved in ``State.windows``."""

    name: ClassVar[str] = ""
    #: the action types it accepts, in the order they are listed
    actions: ClassVar[tuple[str, ...]] = ()
    #: the deadline kind of the seats that owe it (None: nobody owes it, it is a chance)
    timer: ClassVar[str | None] = None

    @abstractmethod
    def moves(self, state: State, rules: Rules, seat: int, top: Any, is_owner: bool, out: list) -> None:
        """Append ``seat``'s moves in this window (``top``: the decision on top of the
        stack, which ``seat`` owes if ``is_owner``)."""

    def takes(self, state: State, rules: Rules, seat: int, move: tuple) -> bool:
        """Whether this window answers ``seat``'s ``move`` (of one of its action types):
        by default, whether it lists it."""
        stack = state.stack
        top = stack[-1] if stack else rules.turn
        out: list = []
        self.moves(state, rules, seat, top, seat == (top.seat if stack else state.current), out)  # type: ignore[union-attr]
        return move in out

    @abstractmethod
    def apply(self, state: State, rules: Rules, seat: int, move: tuple, ev: Events) -> None:
        """Apply ``seat``'s ``move``, which this window takes."""

    def might_take(self, state: State, rules: Rules, seat: int, move: tuple) -> bool:
        """Whether ``move`` is the kind of move this window offers ``seat`` at all
        (used to explain a refusal: "not your turn" or something more precise)."""
        return False

    def on_act(self, state: State, seat: int, kind: str) -> None:
        """The close rule: ``seat`` is about to take an in-turn action of ``kind``."""

    def owed_by(self, state: State) -> tuple[int, ...]:
        """The seats that must act in this window (empty for a chance)."""
        return ()

    def expire(self, state: State, rules: Rules, seat: int, ev: Events) -> None:
        """What the timer does for ``seat``, which owes this window, when its
        deadline (of kind ``timer``) passes (a window that nobody owes, a chance, has
        none)."""
        raise NotImplementedError

    def seconds(self, state: State) -> float | None:
        """How long the seats that owe this window have, counted from when they began to
        owe it, when the window has a deadline of its own (e.g. a buzz window's
        ``buzzer_seconds``); the server then applies the ``expire`` system action for
        each seat still owing it at the end (``core.expire_own``).  None (the default):
        no deadline of its own (the turn's applies, or the window closes with the next
        in-turn action)."""
        return None

    def instance(self) -> int | None:
        """What tells this window from the next one of its type (a stored window may
        close and another open in one move: its seats' clocks start afresh); None:
        one and the same window for as long as it is owed."""
        return None


class StoredWindow(Window, Decision):
    """A window with data of its own (who has acted in it...), opened by an event and
    saved in ``State.windows``, e.g. a buzz window; a module that opens some sets
    ``Rules.opens_windows`` (so that their close rules run) and lists its type in
    ``Rules.decision_types`` (so that the game accepts its action types).  Its ``seat``
    is the seat that opened it.  While the stack is empty, the first stored window's
    ``public`` is the view's ``pending``."""

    timer: ClassVar[str | None] = "window"

    def public(self, state: State) -> dict | None:
        return {"type": self.name, "seat": self.seat}

    def on_turn_action(self, state: State, rules: Rules, seat: int, kind: str, ev: Events) -> None:
        """The close rule of a stored window, with its consequences (cards drawn,
        events): ``seat`` took an in-turn action of ``kind`` while it was open
        (``"timeout"``: the timer acted for the seat in turn).  ``core.execute`` and
        ``core.timeout`` call it once the action applied (the action applies exactly as
        it was listed), in games whose rules set ``opens_windows``, unless the round
        ended with the action; a window that closes removes itself from
        ``State.windows``."""


class Module(ABC):
    """A rule module: the options it plays and how it edits the rules.

    Subclasses declare ``options`` (their :class:`OptionSpec`) and must define
    ``install``; the catalogue lists the modules in the order they install."""

    name: ClassVar[str] = ""
    options: ClassVar[tuple[OptionSpec, ...]] = ()

    @abstractmethod
    def install(self, rules: Rules) -> None:
        """Edit ``rules``: the module's decisions, handlers, windows, effects."""

    def validate(self, opts: dict[str, Any], given: Any) -> None:
        """Refuse option values that make no sense together, raising ``InvalidOptions``
        that names the option (``opts``: the resolved options; ``given``: the ones the
        client set, to name theirs).  Each value alone was checked by its spec."""

    def deck_parts(self, opts: dict) -> tuple[str, ...]:
        """The deck parts (``cards.PARTS``) this module adds with the options ``opts``."""
        return ()

    def validate_seats(self, opts: dict[str, Any], seats: int) -> None:
        """Refuse options that make no sense with ``seats`` players (``teams`` with an
        odd count), raising ``InvalidOptions`` that names the option; called by
        ``catalog.make_config`` once the seat count is known."""

    def base_deck(self, base: str, opts: dict) -> str:
        """The base deck (``cards.DECKS``) the preset's ``base`` becomes with the options
        ``opts`` (a card replaced: ``swap_hands_card``); raises ``InvalidOptions`` naming
        the option when the deck lacks what it replaces."""
        return base


class Family(ABC):
    """The base of the game families: every hook a family must (the abstract methods:
    ``install``, ``start_game``, ``playable``) or may define.

    A family says how a game of it is set up, played and ended; a preset is
    configuration of one (``config.Preset``: a base deck, a seat range, option values).
    UNO is :class:`games.engine.uno.family.UnoFamily`, Duo a subclass of it
    (:class:`games.engine.uno.duo.DuoFamily`: a ``SETUP`` phase whose decisions are the
    draft, its own first-card table), Decktet-Uno a family of its own
    (:class:`games.engine.decktet.family.DecktetFamily`: suits, 3-card hands, points per
    play, the game over when every hand is empty): see the README's "Rules engine"
    section."""

    #: key of the family (``Preset.family``)
    name: ClassVar[str] = ""
    #: what players call the game (messages)
    title: ClassVar[str] = ""
    #: cards dealt to each seat at the start of a round
    hand_size: ClassVar[int] = 0
    #: the colours (or suits) cards have
    colors: ClassVar[tuple[str, ...]] = ()
    #: the rule modules, in the order they install (and declare their options)
    modules: ClassVar[Sequence[Module]] = ()
    #: whether a play may call UNO (``"uno": true`` with the next-to-last card)
    uno_call: ClassVar[bool] = True
    #: why a play of a card that names no colour is refused with a ``color``
    no_color: ClassVar[str] = "only a wild card takes a 'color'"

    @abstractmethod
    def install(self, rules: Rules) -> None:
        """The family's base rules (its turn decision, its cards' effects...)."""

    def deck_parts(self, opts: dict) -> tuple[str, ...]:
        """The deck parts the options add to the preset's base deck: its modules', in
        their order."""
        return tuple(part for module in self.modules for part in module.deck_parts(opts))

    def base_deck(self, base: str, opts: dict) -> str:
        """The base deck the preset's ``base`` becomes with the options: its modules'
        ``base_deck``, in their order (checked by ``catalog.resolve_options``)."""
        for module in self.modules:
            base = module.base_deck(base, opts)
        return base

    @abstractmethod
    def start_game(self, state: State, rules: Rules, ev: Events) -> None:
        """Set up a new game (dealer, first round...)."""

    @abstractmethod
    def playable(self, deck: Deck, color: str | None, rank: str) -> frozenset[int]:
        """The matching rule: the cards that may be played on a top card of ``rank``
        with ``color`` in force (memoised by ``Rules.playable_on``)."""

    def play_takes_color(self, rules: Rules, seat: int, card: int, hand_size: int) -> bool:
        """Whether a play of ``card`` names a colour (a wild)."""
        return False

    def seat_view(self, state: State, seat: int) -> dict:
        """Extra public fields of a seat in the view (its team, its status) where the
        game's rules need them; none by default."""
        return {}

    def table_view(self, state: State, seat: int | None) -> dict:
        """Extra fields of the view that the family's table has (Decktet-Uno's card set
        aside face down), as ``seat`` (None: a spectator) may see them; none by default."""
        return {}


@dataclass(eq=False)
class Rules:
    """The rules of one game (see the module docstring): filled by its family's and its
    modules' ``install``, then ``finish``."""

    family: Family
    deck: Deck
    seats: int
    opts: dict[str, Any]
    #: the ordinary turn: the decision the current seat owes when the stack is empty
    turn: Decision | None = None
    effects: dict[str, Effect] = field(default_factory=dict)
    #: what a rank does when it is the player's last card (the round ends after it)
    finish_effects: dict[str, Finish] = field(default_factory=dict)
    params: dict[str, ParamFn] = field(default_factory=dict)
    #: penalty kind -> ranks that may be played on it instead of accepting it
    stack_on: dict[str, frozenset[str]] = field(default_factory=dict)
    #: decision type name -> the moves modules add to its owner's (``Answer``), listed
    #: after the decision's own
    answers: dict[str, list[Answer]] = field(default_factory=dict)
    #: ranks played only in answer to a decision (a Renvoi), never by the matching rule
    #: nor jumped in -> why such a card is refused in an ordinary turn
    answer_only: dict[str, str] = field(default_factory=dict)
    #: what the first card turned up does, by rank (default: the player left of the dealer starts)
    first_card: dict[str, FirstCard] = field(default_factory=dict)
    #: top-card ranks on which any card may be played (a Buzzer: "anything may follow")
    anything_follows: frozenset[str] = frozenset()
    #: ranks that are put back and replaced when turned up first
    first_card_redraw: frozenset[str] = frozenset()
    challenge: Challenge | None = None
    scoring: Scoring | None = None
    #: the team of each seat for the round about to start (``State.teams``, set by each
    #: round's start), None in a game without teams (``uno/teams.py``)
    teams: Callable[[State], list[int]] | None = None
    #: whether several seats may win the game together (a team): the view and the
    #: ``game_ended`` event then list ``winners``
    several_winners: bool = False
    #: standing windows, in the order their moves are listed after the owner's
    windows: list[Window] = field(default_factory=list)
    #: the decision types this game can push (its family's and its modules')
    decision_types: list[type[Decision]] = field(default_factory=list)
    #: the Wild Draw Four guilt test (rules, hand, colour in force before it, rank of the
    #: card it covered) when played (``uno/wild_draw_four.py``)
    guilt: Callable[[Rules, list[int], str | None, str | None], bool] | None = None
    #: (state, rules, seat, card, target) -> why a play of ``card`` may not name
    #: ``target`` (itself, no such seat, a seat out of the game), or None: the refusal's
    #: generic message (``targeted_draw_cards``)
    target_refusal: Callable[[State, Rules, int, int, int], str | None] | None = None
    #: (state, rules, seat, move) -> whether the game accepts ``move``, which no listing
    #: offers (a jump-in misplay: listing them would list every card), through the window
    #: that ``takes`` it (``jump_in_misplay_points``); None: only listed moves are accepted
    unlisted: Callable[[State, Rules, int, tuple], bool] | None = None
    # -- derived by ``finish()`` once the family and the modules have installed --------
    #: the player action types of this game, in the order messages list them
    action_types: tuple[str, ...] = ()
    #: the action types of the decisions one seat owes (refused from others: not your turn)
    in_turn: frozenset[str] = frozenset()
    #: set by a module that opens stored windows (``State.windows``, e.g. a buzz): their
    #: close rules (``StoredWindow.on_turn_action``) run after each in-turn action
    opens_windows: bool = False
    #: the standing windows' close rules: ``close(state, seat, kind)`` when ``seat`` is
    #: about to take an in-turn action of ``kind`` (built by ``finish``: a hot path)
    close: Callable[[State, int, str], None] = field(default=lambda state, seat, kind: None, repr=False)
    #: the shape checks of this game's action types (``actions.checked_key``)
    shape: Any = None
    #: memo of the matching rule: (colour in force, top rank) -> playable card ids
    _playable: dict = field(default_factory=dict, repr=False)
    #: memo of each card's plays: [seat][hand size class][card] -> moves
    _moves: list = field(default_factory=list, repr=False)

    def opt(self, name: str) -> Any:
        return self.opts[name]

    def finish(self) -> None:
        """Derive the tables that follow from the decision types and windows installed:
        the game's action types (in the order its decisions, then its windows, were
        installed), those owed in turn, the windows with a close rule, the move memo."""
        accepted: dict[str, None] = {}
        for d in self.decision_types:
            accepted.update(dict.fromkeys(d.handlers))
        self.in_turn = frozenset(accepted)
        for w in self.windows:
            accepted.update(dict.fromkeys(w.actions))
        for d in self.decision_types:  # the stored windows' (out of turn, like the standing ones')
            if issubclass(d, Window):
                accepted.update(dict.fromkeys(d.actions))
        self.action_types = tuple(accepted)
        self.shape = shape_of(self.action_types)
        self.close = _closer([w.on_act for w in self.windows if type(w).on_act is not Window.on_act])
        self._moves = [[[None] * len(self.deck) for _ in range(3)] for _ in range(self.seats)]

    def playable_on(self, color: str | None, rank: str) -> frozenset[int]:
        """The cards the family's matching rule admits on ``rank`` with ``color`` in
        force (memoised: it runs for every listing of legal actions)."""
        key = (color, rank)
        cards = self._playable.get(key)
        if cards is None:
            if rank in self.anything_follows:
                cards = frozenset(range(len(self.deck)))
            else:
                cards = self.family.playable(self.deck, color, rank)
            if self.answer_only:
                ranks = self.deck.rank
                cards = frozenset(c for c in cards if ranks[c] not in self.answer_only)
            self._playable[key] = cards
        return cards


def _closer(standing: list[Callable[[State, int, str], None]]) -> Callable[[State, int, str], None]:
    """The close rules of the standing windows (``on_act``); the stored windows' run
    from ``core`` (``StoredWindow.on_turn_action``: their closing has consequences)."""
    if len(standing) == 1:
        return standing[0]  # the usual case (UNO's window): no loop

    def close(state: State, seat: int, kind: str) -> None:
        for on_act in standing:
            on_act(state, seat, kind)

    return close
