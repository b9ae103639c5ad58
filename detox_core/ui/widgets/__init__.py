"""What several pages draw: the preset picker and score cards (:mod:`.scores`), tables as users read
them (:mod:`.tables`), a preset's measured agreement with people (:mod:`.preset_agreement`), and the
annotation items and settings form the Annotate and Annotation projects pages share (:mod:`.annotation`)."""
