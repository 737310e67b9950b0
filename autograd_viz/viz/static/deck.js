// A slide deck (autograd_viz.viz.slides): reveal.js and KaTeX set up, players sized on show.
Reveal.initialize({hash:true,center:false,width:1280,height:800,margin:0.03,
  transition:"none",controlsTutorial:false});
renderMathInElement(document.querySelector(".reveal .slides"),{delimiters:[
  {left:"$$",right:"$$",display:true},{left:"\\[",right:"\\]",display:true},
  {left:"$",right:"$",display:false},{left:"\\(",right:"\\)",display:false}],
  throwOnError:false,ignoredClasses:["avz-code","avz-out"]});
// a player on a slide not yet shown measured 0 when it loaded: size it when its slide shows
function fitPlayers(){document.querySelectorAll(".reveal .present iframe.avz-inline")
  .forEach(function(f){if(f.onload)f.onload.call(f);});}
Reveal.on("ready",fitPlayers);Reveal.on("slidechanged",fitPlayers);
