"""The Game outdoors: the assistant the players carry (docs/outdoor.md).

* :mod:`~tabletop.outdoor.view`: the field set-up and the camera above it;
* :mod:`~tabletop.outdoor.readings`: each piece's side, centre, footprint and facing in inches;
* :mod:`~tabletop.outdoor.assistant`: who is observed and what each piece may do, in sentences;
* :mod:`~tabletop.outdoor.overlay`: the overlay drawn on the ground plane;
* :mod:`~tabletop.outdoor.frame`: one frame through all of it (:class:`OutdoorAssistant`);
* :mod:`~tabletop.outdoor.measure`: ``tabletop measure`` and click-to-measure in a window;
* :mod:`~tabletop.outdoor.truth`: a rendered frame's ground truth as inputs and answers.

Nothing heavy is imported here: import the submodules.
"""
