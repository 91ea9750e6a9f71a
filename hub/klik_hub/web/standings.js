"use strict";
// What decided each place, as the console, the phone board and the projector show the
// classification (issue 37): a separator before each stage's group (the stage whose
// standings placed the rows under it) and before the players without a place, the judge's
// marks, and the big points the judge took with the stage they were given in. Loaded after
// /words.js, before the page's own script.

// A stage's name in the page's language: the format's own (Polish) name, or its English
// title; each page tells knowStages the stages its answer lists.
let stageTitles = new Map();
function knowStages(stages) {
  stageTitles = new Map((stages || []).map(s => [s.name, s.title_en]));
}
const stageName = name => name != null && language === "en" ? stageTitles.get(name) ?? name : name;

// The group a row is in: its stage, or no place at all (no game of theirs counts).
const standingsGroup = r => r.place === null
  ? pgettext("standings", "No place: no game counts") : stageName(r.stage) ?? "";

// ``rows`` as lines, ``separator(label, row)`` before each group where there is more than one
// (a group without a stage, of a format that ranks every round together, is not named).
function grouped(rows, separator, line) {
  const groups = new Set(rows.map(standingsGroup));
  return rows.flatMap((r, k) => {
    const label = standingsGroup(r);
    const first = k === 0 || standingsGroup(rows[k - 1]) !== label;
    return groups.size > 1 && first && label ? [separator(label, r), line(r)] : [line(r)];
  });
}

// The judge's mark on a row, " (withdrawn)" or " (excluded)", else "".
const marked = r => r.status === "withdrawn" ? " (" + pgettext("standings", "withdrawn") + ")"
  : r.status === "excluded" ? " (" + pgettext("standings", "excluded") + ")" : "";

// Big points the judge took, each with the stage it was given in: "−2 (eliminacje)".
const deducted = r => r.deductions
  .map(d => pgettext("standings", "−{big} ({stage})", {big: d.big, stage: stageName(d.stage) ?? "–"})).join(", ");

// A group's separator line: one header cell across ``columns`` cells, named by ``label``.
function stageRow(label, columns) {
  const tr = document.createElement("tr");
  const th = tr.appendChild(document.createElement("th"));
  Object.assign(th, {colSpan: columns, scope: "rowgroup", textContent: label});
  tr.className = "stage";
  return tr;
}
