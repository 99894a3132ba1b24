'use strict';
// The entry pickers of an erratum's "Affects" and a FAQ question's "Related entries"
// (rules/admin/pickers.py): the admin's select2 autocomplete, as admin/js/autocomplete.js
// starts it, but each request also sends the game and language chosen in the form at
// that moment, so only their entries are offered.
{
    const $ = django.jQuery;

    function chosen(select, name) {
        const field = name && select.form ? select.form.elements.namedItem(name) : null;
        return field ? field.value : '';
    }

    function start(select) {
        $(select).select2({
            ajax: {
                data: (params) => ({
                    term: params.term,
                    page: params.page,
                    app_label: select.dataset.appLabel,
                    model_name: select.dataset.modelName,
                    field_name: select.dataset.fieldName,
                    game: chosen(select, select.dataset.gameField),
                    language: chosen(select, select.dataset.languageField)
                })
            }
        });
    }

    $(function() {
        $('select.entry-picker').not('[name*=__prefix__]').each((index, select) => start(select));
    });
}
