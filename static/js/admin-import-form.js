'use strict';
// The admin's import form (rules/admin/importing.py): choosing a game brings its main
// language and its sources (rules_entry_import_game, JSON); choosing a source brings its
// language. Without this script the form works the same, starting from ?game=.
{
    const form = document.getElementById('import-form');
    const game = form && form.elements.namedItem('game');
    const language = form && form.elements.namedItem('language');
    const source = form && form.elements.namedItem('source');

    function setLanguage(code) {
        if (code && language && [...language.options].some((option) => option.value === code)) {
            language.value = code;
        }
    }

    function fill(data) {
        setLanguage(data.language);
        if (!source) {
            return;
        }
        const none = source.options[0];
        source.replaceChildren(none);
        for (const item of data.sources) {
            const option = new Option(item.label, item.id);
            option.dataset.language = item.language;
            source.append(option);
        }
        source.value = '';
    }

    if (game && form.dataset.gameUrl) {
        game.addEventListener('change', () => {
            if (!game.value) {
                fill({language: '', sources: []});
                return;
            }
            fetch(form.dataset.gameUrl.replace('/0/', `/${encodeURIComponent(game.value)}/`), {
                credentials: 'same-origin',
                headers: {Accept: 'application/json'}
            })
                .then((response) => (response.ok ? response.json() : null))
                .then((data) => data && fill(data));
        });
    }
    if (source) {
        source.addEventListener('change', () => {
            const chosen = source.selectedOptions[0];
            setLanguage(chosen && chosen.dataset.language);
        });
    }
}
