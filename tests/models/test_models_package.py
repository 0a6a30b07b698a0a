from __future__ import annotations

import pytest

import models


def test_asking_for_weights_that_are_not_shipped_names_what_is() -> None:
    with pytest.raises(models.ModelNotFoundError, match="no shipped weights called 'nonexistent'"):
        models.weights_path("nonexistent")
