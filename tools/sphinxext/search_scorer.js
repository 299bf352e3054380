// The book's search ranks as Sphinx's does (these are its default weights), with one
// change: a section whose title holds the whole query comes before the pages that merely
// contain its words. A reader who pastes the first words of an error message lands on
// that message's entry of the errors page (book/errors.ipynb), not on the chapters that
// happen to use the same words; `html_search_scorer` in _config.yml loads this file.
var Scorer = {
  // result: [docname, title, anchor, description, score, filename]; Sphinx gives a
  // section whose title contains the query an anchor, a page none
  score: (result) => (result[2] ? result[4] + 20 : result[4]),
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
