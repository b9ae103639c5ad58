"""The sidebar's model settings: the embedded preset's state, BERTScore, and local folders
for the official models, with a check that they load.

The settings map an official model id to a local folder (for servers that cannot reach the
model hub) and apply to the whole server, as the shared pool
(:mod:`detox_core.ui.app.models`) does.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from detox_core.models import meaning
from detox_core.metrics.embedded.heads import heads_folder, load_heads, shipped
from detox_core.errors import ModelUnavailableError
from detox_core.metrics import bertscore
from detox_core.ui.app import auth, render
from detox_core.ui.app.models import device_text, official_models, shared_pool


def _embedded_status(organizer: bool) -> None:
    """The embedded preset's heads (shipped, or a folder ``DETOX_HEADS_DIR`` names) and
    whether its model of meaning runs here."""
    try:
        heads = load_heads(heads_folder())
    except (OSError, ValueError) as err:
        st.warning(f"Embedded preset: its trained heads cannot be read ({render.md(err, None)}): reinstall the "
                   "package, or rebuild them with `detox train-embedded`.")
        return
    where = "shipped with the package" if shipped() else "from the folder DETOX_HEADS_DIR names"
    st.caption(f"**Embedded preset** (offline): trained heads {where}, `{heads.digest}`.")
    reason = meaning.unavailable_reason()
    if reason is not None:
        st.warning(f"Embedded preset: its model of meaning cannot run here, so it cannot score: {render.md(reason, None)}")


def _bertscore_setting(organizer: bool) -> None:
    """BERTScore on or off, its model and layer: a server-wide organizer setting (its model
    comes from the hub, or from a local folder set like the official models')."""
    current = bertscore.setting()
    if not organizer:
        st.caption(f"**BERTScore**: {'computed with ' + current.model if current.enabled else 'off (n/a)'}.")
        return
    on = st.toggle("Compute BERTScore", value=current.enabled, key="bertscore_on",
                   help="BERTScore F1 against the references, for submissions scored from now on (it needs the model "
                        f"from the hub or a local folder; default {bertscore.DEFAULT_MODEL}, layer 9, as the "
                        "bert-score package does for Russian). Off: its column reads n/a.")
    model = st.text_input("BERTScore model", value=current.model, key="bertscore_model", disabled=not on).strip()
    layer = st.number_input("BERTScore layer", min_value=0, max_value=100, value=current.layer, key=f"bertscore_layer::{current.model}",
                            disabled=not on, help="bert-score's layer for the model by default")
    if (on, model, int(layer)) != (current.enabled, current.model, current.layer):
        new_layer = int(layer) if model == current.model else None  # a new model: bert-score's layer for it
        bertscore.configure(enabled=on, model=model or bertscore.DEFAULT_MODEL, layer=new_layer)


def render_model_settings() -> None:
    """Sidebar expander: embedded status, local folders for the official models, a check.

    The folders are an organizer setting (they apply to the whole server) and must lie
    inside the configured model roots (:func:`detox_core.ui.app.auth.model_roots`); visitors
    see the status only.
    """
    pool = shared_pool()
    organizer = auth.is_organizer()
    with st.sidebar.expander("Metric models", icon=":material/memory:"):
        _embedded_status(organizer)
        kinds = official_models()
        mapping = pool.model_map
        if not organizer:
            mapped = sum(1 for (preset, role) in kinds if preset.default_models()[role] in mapping)
            st.caption(f"**Official models** run on {device_text(pool)}; {mapped} of {len(kinds)} load from local "
                       "folders set by the organizers.")
            _bertscore_setting(False)
            return
        _bertscore_setting(True)
        st.caption(
            f"**Official models** run on {device_text(pool)}. Leave a folder empty to load from the model hub; "
            "give a folder for a local copy. Applies to everyone using this server."
            + ("" if auth.is_open() else " Folders must lie inside: "
               + ", ".join(render.md(r) for r in auth.model_roots()) + ".")
        )
        # The models, then the models whose tokenizer or encoder files another one is read with.
        fields = [(preset.default_models()[role], f"{preset.display()} {role.upper()}") for preset, role in kinds]
        fields += [(preset.companions[role], f"{preset.display()} {role.upper()}'s tokenizer")
                   for preset, role in kinds if role in preset.companions]
        for model_id, what in dict(fields).items():
            key = f"model_dir::{model_id}"
            current = mapping.get(model_id, "")
            value = st.text_input(
                f"{model_id} ({what})", value=current, key=key,
                placeholder="local folder (optional)",
            ).strip()
            if value == current:
                continue
            if not value:
                pool.map_model(model_id, None)
            elif not auth.model_folder_allowed(value):
                # Said the same way whether the folder exists or not: the field must not
                # tell which folders the server has.
                st.error(f"{render.md(value)} is not inside the model folders configured for this server.")
            elif Path(value).is_dir():
                pool.map_model(model_id, value)
            else:
                st.error(f"{render.md(value)} is not a folder on this server.")
        if st.button("Check that the official models load", key="check_models"):
            for (preset, role), kind in kinds.items():
                model_id = preset.default_models()[role]
                try:
                    info = pool.info(model_id, kind, role, tokenizer=preset.companions.get(role))
                except ModelUnavailableError as err:
                    st.error(f"{preset.display()} {role.upper()}: {render.md(err.reason, None)}")
                else:
                    where = info["source"] if info["source"] != "hub" else "the hub cache"
                    st.success(f"{preset.display()} {role.upper()}: loaded from {where} on {info['device']}")
