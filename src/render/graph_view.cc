#include "render/graph_view.h"

#include <sstream>

#include "render/escape.h"
#include "render/svg.h"

namespace trtlens {
namespace {

const char* kViewStyle = R"(
.gv-bar{display:flex;gap:6px;align-items:center;margin:4px 0;font-size:12px}
.gv-bar button{padding:1px 8px}.gv-bar input{width:260px;padding:2px}
.gv{height:80vh;border:1px solid #ccc;background:#fff;overflow:hidden;cursor:grab;touch-action:none}
.gv svg{width:100%;height:100%;display:block}
.gv g.node.gv-hit path,.gv g.node.gv-hit polygon{stroke:#e00000;stroke-width:4px}
.gv g.node.gv-sel path,.gv g.node.gv-sel polygon{stroke:#0050ff;stroke-width:5px}
.gv-info{font-size:12px;white-space:pre-wrap;background:#f4f6f8;padding:4px 8px;margin:4px 0;max-height:10em;overflow:auto}
tr.gv-row td{background:#dde8ff}
)";

// Pan (drag), zoom (wheel, buttons), search (layer name, type, ONNX nodes: the tooltip text),
// click a node: its details, and its row in the layers table when the table holds it. Works on
// the viewBox only, so the SVG Graphviz wrote stays as it is.
const char* kViewScript = R"(
(function(root){
  var box=root.querySelector('.gv'),svg=box&&box.querySelector('svg');if(!svg)return;
  var info=root.querySelector('.gv-info'),q=root.querySelector('.gv-q'),count=root.querySelector('.gv-n');
  var full=svg.viewBox.baseVal,W=full.width,H=full.height,X0=full.x,Y0=full.y,v;
  svg.removeAttribute('width');svg.removeAttribute('height');
  function set(x,y,w,h){v={x:x,y:y,w:w,h:h};svg.setAttribute('viewBox',x+' '+y+' '+w+' '+h);}
  function aspect(){var r=box.getBoundingClientRect();return r.width>0?r.height/r.width:0.6;}
  function fit(){set(X0,Y0,W,H);}
  function top(){var w=Math.min(W,Math.max(W/4,800)),h=w*aspect();set(X0+(W-w)/2,Y0,w,h);}
  function zoom(f,cx,cy){if(cx===undefined){cx=v.x+v.w/2;cy=v.y+v.h/2;}
    set(cx-(cx-v.x)*f,cy-(cy-v.y)*f,v.w*f,v.h*f);}
  function pt(e){var r=box.getBoundingClientRect();
    return {x:v.x+(e.clientX-r.left)/r.width*v.w,y:v.y+(e.clientY-r.top)/r.height*v.h};}
  (H>W*aspect()*1.5?top:fit)();
  box.addEventListener('wheel',function(e){e.preventDefault();var p=pt(e);zoom(e.deltaY>0?1.25:0.8,p.x,p.y);},{passive:false});
  var drag=null,moved=false;
  box.addEventListener('pointerdown',function(e){drag={x:e.clientX,y:e.clientY,v:v};moved=false;});
  window.addEventListener('pointerup',function(){drag=null;});
  box.addEventListener('pointermove',function(e){if(!drag)return;var r=box.getBoundingClientRect();
    var dx=(e.clientX-drag.x)/r.width*drag.v.w,dy=(e.clientY-drag.y)/r.height*drag.v.h;
    if(Math.abs(e.clientX-drag.x)+Math.abs(e.clientY-drag.y)>3)moved=true;
    set(drag.v.x-dx,drag.v.y-dy,drag.v.w,drag.v.h);});
  root.querySelector('.gv-in').addEventListener('click',function(){zoom(0.7);});
  root.querySelector('.gv-out').addEventListener('click',function(){zoom(1/0.7);});
  root.querySelector('.gv-fit').addEventListener('click',fit);
  var nodes=Array.prototype.slice.call(svg.querySelectorAll('g.node'));
  function text(n){var a=n.querySelector('a');return (a&&(a.getAttribute('xlink:title')||a.getAttribute('title')))||n.textContent;}
  function show(n){var b=n.getBBox(),m=n.getCTM(),s=svg.getCTM();
    if(m&&s){var k=s.inverse().multiply(m);var cx=k.a*(b.x+b.width/2)+k.c*(b.y+b.height/2)+k.e,cy=k.b*(b.x+b.width/2)+k.d*(b.y+b.height/2)+k.f;
      var w=Math.min(v.w,Math.max(600,b.width*6)),h=w*aspect();set(cx-w/2,cy-h/2,w,h);}}
  var hits=[],at=-1;
  function search(){nodes.forEach(function(n){n.classList.remove('gv-hit');});hits=[];at=-1;
    var s=q.value.toLowerCase();if(s){nodes.forEach(function(n){if(text(n).toLowerCase().indexOf(s)>=0){n.classList.add('gv-hit');hits.push(n);}});}
    count.textContent=s?hits.length+' match'+(hits.length==1?'':'es'):'';if(hits.length){at=0;show(hits[0]);}}
  q.addEventListener('input',search);
  q.addEventListener('keydown',function(e){if(e.key==='Enter'&&hits.length){at=(at+1)%hits.length;show(hits[at]);count.textContent=(at+1)+' of '+hits.length;}});
  var table=document.getElementById('table-layers');
  function select(n){nodes.forEach(function(x){x.classList.remove('gv-sel');});n.classList.add('gv-sel');
    info.textContent=text(n);root.setAttribute('data-selected',n.id);
    var m=/L(\d+)$/.exec(n.id);if(!m||!table)return;
    Array.prototype.forEach.call(table.querySelectorAll('tr.gv-row'),function(r){r.classList.remove('gv-row');});
    var rows=table.tBodies[0].rows;for(var i=0;i<rows.length;i++){if(rows[i].cells[0].getAttribute('data-v')===m[1]){
      rows[i].classList.add('gv-row');rows[i].style.display='';if(rows[i].scrollIntoView)rows[i].scrollIntoView({block:'center'});return;}}
    info.textContent+='\n(layer '+m[1]+' is not in the layers table)';}
  nodes.forEach(function(n){n.addEventListener('click',function(e){e.preventDefault();if(!moved)select(n);});});
})(document.currentScript.parentNode);
)";

}  // namespace

std::string graph_view_html(const Build& b, const DotOptions& dot_options, const std::string& id,
                            std::vector<std::string>& notes) {
  std::ostringstream os;
  auto note = [&](const std::string& n) {
    notes.push_back(n);
    os << "<p class=\"note\">" << escape_html(n) << "</p>\n";
  };
  DotOptions d = dot_options;
  d.id_prefix = id + "_";  // Graphviz writes '-' in ids as &#45;
  std::string svg;
  try {
    DotGraph g = engine_dot(b, d);
    svg = svg_element(graphviz_render(g.dot, "svg", g.engine));
    for (const auto& n : g.notes) note(n);
  } catch (const std::exception& e) {
    note(std::string("graph not drawn: ") + e.what());
    return os.str();
  }
  os << "<div class=\"gv-root\" id=\"" << escape_html(id) << "-view\"><style>" << kViewStyle
     << "</style>\n<div class=\"gv-bar\"><input class=\"gv-q\" type=\"search\" "
        "placeholder=\"find a layer or ONNX node\"><span class=\"gv-n\"></span>"
        "<button class=\"gv-in\" type=\"button\">+</button><button class=\"gv-out\" "
        "type=\"button\">&minus;</button><button class=\"gv-fit\" type=\"button\">fit</button>"
        "<small>drag to pan, wheel to zoom, click a node for its row</small></div>\n"
     << "<div class=\"gv\">" << svg << "</div>\n<div class=\"gv-info\"></div>\n<script>"
     << kViewScript << "</script></div>\n";
  return os.str();
}

}  // namespace trtlens
