"""The Annotate page (an annotator's work): the annotator's session (:mod:`.session`), the
instructions, training and exam (:mod:`.steps`), the work pages (:mod:`.work`) and the page of
items drawn as one component (:mod:`.page`, its script and style in ``ui/components``)."""
