"""The keywords of the solver functions that are runs of the driver (laplace3d, montecarlo,
coulomb): every declared key is a keyword or set by an argument of the function's own, each
keyword's docstring line is the key's declaration, and two keys of one keyword are refused."""

import pytest

import parasol
from parasol._params import Keywords

FUNCTIONS = {"laplace3d": parasol.laplace3d.solve, "montecarlo": parasol.montecarlo.price,
             "coulomb": parasol.coulomb.potential}


@pytest.mark.parametrize("solver", sorted(FUNCTIONS))
def test_every_declared_key_is_reachable_once(solver):
    module = getattr(parasol, solver)
    keywords = module._KEYWORDS
    declared = {k["key"] for k in parasol.keys(solver) if not k["key"].startswith("sweep.")}
    by_keyword = set(keywords.key_of.values())
    assert len(by_keyword) == len(keywords.key_of)  # one key a keyword
    # The rest are the function's own arguments' (shape, boundary, lattice, atoms), or left to
    # parasol.run (coulomb's output.dx: a map beside a result that is not kept).
    own = {"laplace3d": {"grid.nx", "grid.ny", "grid.nz", "boundary.x_min", "boundary.x_max",
                         "boundary.y_min", "boundary.y_max", "boundary.z_min", "boundary.z_max"},
           "montecarlo": set(),
           "coulomb": {"lattice.origin", "lattice.spacing", "lattice.nx", "lattice.ny",
                       "lattice.nz", "atoms.file", "output.dx"}}[solver]
    assert by_keyword | own == declared
    assert not by_keyword & own


@pytest.mark.parametrize("solver", sorted(FUNCTIONS))
def test_the_docstring_is_the_declarations(solver):
    doc = FUNCTIONS[solver].__doc__
    keywords = getattr(parasol, solver)._KEYWORDS
    for keyword, key in keywords.key_of.items():
        assert "    %s (%s" % (keyword, key) in doc, keyword
    for k in parasol.keys(solver):
        if k["key"] in keywords.key_of.values():
            assert k["help"].split()[0] in doc


def test_two_keys_of_one_keyword_are_refused():
    # model.kind and payoff.kind would both be "kind" without montecarlo's renames.
    with pytest.raises(RuntimeError, match="keyword kind would set both model.kind and "
                                           "payoff.kind"):
        Keywords("montecarlo", "montecarlo.price")


def test_a_rename_of_an_undeclared_key_is_refused():
    with pytest.raises(RuntimeError, match="grid.nw is not a key laplace3d declares"):
        Keywords("laplace3d", "laplace3d.solve", renamed={"grid.nw": "width"})
