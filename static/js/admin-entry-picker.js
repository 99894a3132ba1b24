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

    // select2's search box has no label of its own: it takes the field's (axe: "label").
    function labelSearch(select) {
        const label = select.id ? document.querySelector(`label[for="${select.id}"]`) : null;
        const search = $(select).next('.select2-container').find('.select2-search__field');
        if (label) {
            search.attr('aria-label', label.textContent.replace(/:\s*$/, '').trim());
        }
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
        labelSearch(select);
        // Open, the box names its list with aria-owns only; a combobox names it with
        // aria-controls (axe: "aria-required-attr").
        $(select).on('select2:open', () => {
            const box = $(select).next('.select2-container').find('.select2-selection');
            box.attr('aria-controls', box.attr('aria-owns'));
        });
    }

    $(function() {
        $('select.entry-picker').not('[name*=__prefix__]').each((index, select) => start(select));
    });
}
