// The catalogue's functions for the pages' scripts (klik/words.py says how messages are marked).
// /words.js is CATALOGUE (the hub writes it from klik.po) followed by this file; the page's
// own script comes after it and calls speak() once with its language.
//   _("Pile: {n}", {n: 5})                      a message with its names filled in
//   ngettext("{n} game", "{n} games", n)        a plural; {n} is the count
//   pgettext("column", "Small")                  a message whose English needs a context
// `pybabel extract` finds these calls (pyproject.toml: [tool.babel]); only string literals.
let language = "pl";
let pluralRules = new Intl.PluralRules(language);

// The page's language: "pl" (the default) or "en". Anything else is Polish.
function speak(lang) {
  language = lang in CATALOGUE ? lang : "pl";
  pluralRules = new Intl.PluralRules(language);
  document.documentElement.lang = language;
  return language;
}

// {name} in text, from args; a name not given stays as it is (a visible slip, not a crash).
function fill(text, args) {
  return args ? text.replace(/\{(\w+)\}/g, (all, name) => name in args ? String(args[name]) : all) : text;
}

function _(msgid, args) {
  const said = CATALOGUE[language].messages[msgid];
  return fill(typeof said === "string" && said ? said : msgid, args);
}

function pgettext(context, msgid, args) {
  const said = CATALOGUE[language].messages[`${context}\u0004${msgid}`];
  return fill(typeof said === "string" && said ? said : msgid, args);
}

// The form for n by the browser's CLDR rules, mapped to the catalogue's forms by the hub
// (checked there against gettext's own formula); English without a catalogue: one or other.
function ngettext(singular, plural, n, args) {
  const forms = CATALOGUE[language].messages[singular];
  const category = pluralRules.select(n);
  const fallback = category === "one" ? singular : plural;
  const form = Array.isArray(forms) ? forms[CATALOGUE[language].plural[category] ?? forms.length - 1] : null;
  return fill(form || fallback, {n, ...args});
}
