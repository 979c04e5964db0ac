// Injected at the top of <head> of a copy of the report: records errors, then exercises the
// page as a person would (sort, filter) and writes the results into <pre id="probe-result">.
(function () {
  var errors = [];
  window.addEventListener('error', function (e) { errors.push('error: ' + e.message); });
  var original = console.error;
  console.error = function () {
    errors.push('console.error: ' + Array.prototype.join.call(arguments, ' '));
    original.apply(console, arguments);
  };
  function column(t, i) {
    return Array.prototype.map.call(t.tBodies[0].rows, function (r) { return r.cells[i].textContent; });
  }
  window.addEventListener('load', function () {
    var r = {errors: errors};
    // Layout at the window's width: nothing may push the page sideways.
    r.scroll_width = document.documentElement.scrollWidth;
    r.client_width = document.documentElement.clientWidth;
    var head = document.getElementById('headline');
    r.headline = head ? head.innerText : '';
    r.chart_svgs = document.querySelectorAll('#charts svg').length;
    // The legend is drawn inside the graph's SVG (a node with id "legend").
    r.graph_legend = document.querySelector('#graph .legend, #graph #legend') !== null;
    r.svg_nodes = document.querySelectorAll('#graph svg g.node').length;
    r.svgs = document.querySelectorAll('svg').length;
    r.tables = document.querySelectorAll('table.sortable').length;
    // The layer table of a report, the change list of a diff page.
    var t = document.getElementById('table-layers') || document.getElementById('table-changes');
    r.rows = t ? t.tBodies[0].rows.length : 0;
    if (t) {
      var name = t.tHead.rows[0].cells[1];
      name.click();
      var asc = column(t, 1);
      var expected = asc.slice().sort(function (a, b) { return a.localeCompare(b); });
      r.sort_name_asc = JSON.stringify(asc) === JSON.stringify(expected);
      name.click();
      r.sort_name_desc = JSON.stringify(column(t, 1)) === JSON.stringify(expected.slice().reverse());
      var index = t.tHead.rows[0].cells[0];
      index.click();  // a numeric column sorts descending on the first click
      r.first_index_desc = t.tBodies[0].rows[0].cells[0].textContent;
      var f = document.querySelector('input.filter[data-table="' + t.id + '"]');
      f.value = r.filter = column(t, 1)[0];
      f.dispatchEvent(new Event('input'));
      r.visible_after_filter = Array.prototype.filter.call(t.tBodies[0].rows, function (x) {
        return x.style.display !== 'none';
      }).length;
    }
    // The interactive graph: zoom changes the view, search finds layer 1 by name, clicking its
    // node selects its row in the layers table.
    var view = document.querySelector('#graph .gv-root');
    if (view && t) {
      var svg = view.querySelector('svg'), before = svg.getAttribute('viewBox');
      view.querySelector('.gv-in').click();
      r.zoomed = svg.getAttribute('viewBox') !== before;
      var one = Array.prototype.filter.call(t.tBodies[0].rows, function (x) {
        return x.cells[0].getAttribute('data-v') === '1';
      })[0];
      var q = view.querySelector('.gv-q');
      q.value = one ? one.cells[1].textContent : '';
      q.dispatchEvent(new Event('input'));
      r.search_hits = view.querySelectorAll('g.node.gv-hit').length;
      var node = view.querySelector('g.node[id="graph_L1"]');
      if (node) node.dispatchEvent(new MouseEvent('click', {bubbles: true}));
      var row = t.querySelector('tr.gv-row');
      r.clicked_row = row ? row.cells[0].textContent : null;
    }
    var pre = document.createElement('pre');
    pre.id = 'probe-result';
    pre.textContent = JSON.stringify(r);
    document.body.appendChild(pre);
  });
})();
