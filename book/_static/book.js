// Chapter 06's rules table becomes a card per op on a phone (book.css): display values
// other than table's make some browsers drop its roles, so screen readers would hear
// loose text; the roles are given outright, and a cell still belongs to its column.
document.addEventListener("DOMContentLoaded", () => {
  for (const table of document.querySelectorAll(".tag_rules-table table")) {
    table.setAttribute("role", "table");
    const roles = [["thead, tbody", "rowgroup"], ["tr", "row"], ["th", "columnheader"], ["td", "cell"]];
    for (const [selector, role] of roles) {
      for (const el of table.querySelectorAll(selector)) el.setAttribute("role", role);
    }
  }
});
