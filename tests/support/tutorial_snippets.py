"""Code as readers bring it from PyTorch's tutorials and docs, d2l and micrograd, written
here in our own words where the original is long.  Each snippet is run unmodified with
``torch`` bound to PyTorch and to autograd_lab (see test_tutorial_snippets.py)."""

SNIPPETS = {}


def snippet(source_title):
    def add(code):
        SNIPPETS[f"{source_title} #{sum(k.startswith(source_title) for k in SNIPPETS) + 1}"] = code
    return add


# -- PyTorch: "A Gentle Introduction to torch.autograd" --------------------------------------
gentle = snippet("A Gentle Introduction to torch.autograd")
gentle("""
import torch
a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3*a**3 - b**2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9*a**2 == a.grad)
print(-2*b == b.grad)
""")
gentle("""
import torch
x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)
a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")
""")
gentle("""
import torch
from torch import nn, optim
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
for param in model.parameters():
    param.requires_grad = False
model[-1].weight.requires_grad_(True)
optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
print([p.requires_grad for p in model.parameters()])
""")

# -- PyTorch: the 60-minute blitz, "Autograd: automatic differentiation" (older edition) ------
blitz = snippet("Autograd: automatic differentiation")
blitz("""
import torch
x = torch.ones(2, 2, requires_grad=True)
print(x)
y = x + 2
print(y)
print(y.grad_fn)
z = y * y * 3
out = z.mean()
print(z, out)
out.backward()
print(x.grad)
""")
blitz("""
import torch
a = torch.randn(2, 2)
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)
""")
blitz("""
import torch
x = torch.randn(3, requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
print(y)
gradients = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(gradients)
print(x.grad)
print(x.requires_grad)
print((x ** 2).requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)
""")

# -- PyTorch: "Automatic Differentiation with torch.autograd" (Learn the Basics) -------------
basics = snippet("Automatic Differentiation with torch.autograd")
basics("""
import torch
x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")
loss.backward()
print(w.grad)
print(b.grad)
""")
basics("""
import torch
x, w, b = torch.ones(5), torch.randn(5, 3, requires_grad=True), torch.randn(3, requires_grad=True)
z = torch.matmul(x, w)+b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)
z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)
""")
basics("""
import torch
inp = torch.eye(4, 5, requires_grad=True)
out = (inp+1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nSecond call\\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nCall after zeroing gradients\\n{inp.grad}")
""")

# -- PyTorch: "Build the Neural Network" and "Optimizing Model Parameters" (smaller sizes) ---
build = snippet("Build the Neural Network")
build("""
import torch
from torch import nn
device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")
class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(4*4, 12), nn.ReLU(), nn.Linear(12, 12), nn.ReLU(), nn.Linear(12, 5))
    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits
model = NeuralNetwork().to(device)
print(model)
X = torch.rand(1, 4, 4, device=device)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \\n")
""")
build("""
import torch
from torch import nn
input_image = torch.rand(3, 4, 4)
print(input_image.size())
flatten = nn.Flatten()
flat_image = flatten(input_image)
print(flat_image.size())
layer1 = nn.Linear(in_features=16, out_features=6)
hidden1 = layer1(flat_image)
print(hidden1.size())
hidden1 = nn.ReLU()(hidden1)
seq_modules = nn.Sequential(flatten, layer1, nn.ReLU(), nn.Linear(6, 3))
logits = seq_modules(input_image)
softmax = nn.Softmax(dim=1)
pred_probab = softmax(logits)
print(pred_probab.sum(1))
""")
optimizing = snippet("Optimizing Model Parameters")
optimizing("""
import torch
from torch import nn
model = nn.Sequential(nn.Flatten(), nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-1)
X, y = torch.randn(10, 2, 3), torch.randint(0, 3, (10,))
def train_loop():
    model.train()
    for batch in range(5):
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print(f"loss: {loss.item():>7f}")
def test_loop():
    model.eval()
    with torch.no_grad():
        pred = model(X)
        test_loss = loss_fn(pred, y).item()
        correct = (pred.argmax(1) == y).type(torch.float).sum().item()
    print(f"Accuracy: {(100*correct/len(y)):>0.1f}%, Avg loss: {test_loss:>8f}")
train_loop()
test_loop()
""")

# -- PyTorch: "Learning PyTorch with Examples" ------------------------------------------------
examples = snippet("Learning PyTorch with Examples")
examples("""
import torch
import math
dtype = torch.float
device = torch.device("cpu")
x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)
a = torch.randn((), device=device, dtype=dtype, requires_grad=True)
b = torch.randn((), device=device, dtype=dtype, requires_grad=True)
c = torch.randn((), device=device, dtype=dtype, requires_grad=True)
d = torch.randn((), device=device, dtype=dtype, requires_grad=True)
learning_rate = 1e-6
for t in range(300):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
""")
examples("""
import torch
import math
class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)
    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)
dtype = torch.float
device = torch.device("cpu")
x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)
a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)
learning_rate = 5e-6
for t in range(300):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print(f'Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)')
""")
examples("""
import torch
import math
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction='sum')
learning_rate = 1e-6
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, loss.item())
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad
linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + {linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3')
""")
examples("""
import torch
import math
class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
    def string(self):
        return f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3'
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
model = Polynomial3()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(300):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 100 == 99:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f'Result: {model.string()}')
""")
examples("""
import random
import torch
import math
class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))
    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
model = DynamicNet()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(200):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 50 == 49:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""")

# -- PyTorch: "Double Backward with Custom Functions" ----------------------------------------
double = snippet("Double Backward with Custom Functions")
double("""
import torch
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2
    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return grad_out * 2 * x
x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(Square.apply, x))
print(torch.autograd.gradgradcheck(Square.apply, x))
x = torch.tensor(1., requires_grad=True).clone()
out = Square.apply(x)
grad_x, = torch.autograd.grad(out, x, create_graph=True)
print(grad_x)
""")
double("""
import torch
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.exp(x)
        ctx.save_for_backward(result)
        return result
    @staticmethod
    def backward(ctx, grad_out):
        result, = ctx.saved_tensors
        return result * grad_out
x = torch.tensor(1., requires_grad=True, dtype=torch.double).clone()
print(torch.autograd.gradcheck(Exp.apply, x))
print(torch.autograd.gradgradcheck(Exp.apply, x))
out = Exp.apply(x)
grad_x, = torch.autograd.grad(out, x, create_graph=True)
print(grad_x.requires_grad, torch.autograd.grad(grad_x, x)[0])
""")
double("""
import torch
class Sinh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        return (expx - expnegx) / 2, expx, expnegx
    @staticmethod
    def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
        expx, expnegx = ctx.saved_tensors
        grad_input = grad_out * (expx + expnegx) / 2
        grad_input += _grad_out_exp * expx
        grad_input -= _grad_out_negexp * expnegx
        return grad_input
def sinh(x):
    return Sinh.apply(x)[0]
x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(sinh, x))
print(torch.autograd.gradgradcheck(sinh, x))
out = sinh(x)
grad_x, = torch.autograd.grad(out.sum(), x, create_graph=True)
print(grad_x)
""")
double("""
import torch
def cube_forward(x):
    return x**3
def cube_backward(grad_out, x):
    return grad_out * 3 * x**2
def cube_backward_backward(grad_out, sav_grad_out, x):
    return grad_out * sav_grad_out * 6 * x
def cube_backward_backward_grad_out(grad_out, x):
    return grad_out * 3 * x**2
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return cube_forward(x)
    @staticmethod
    def backward(ctx, grad_out):
        x, = ctx.saved_tensors
        return CubeBackward.apply(grad_out, x)
class CubeBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, grad_out, x):
        ctx.save_for_backward(x, grad_out)
        return cube_backward(grad_out, x)
    @staticmethod
    def backward(ctx, grad_out):
        x, sav_grad_out = ctx.saved_tensors
        dx = cube_backward_backward(grad_out, sav_grad_out, x)
        dgrad_out = cube_backward_backward_grad_out(grad_out, x)
        return dgrad_out, dx
x = torch.tensor(2., requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(Cube.apply, x))
print(torch.autograd.gradgradcheck(Cube.apply, x))
""")

# -- PyTorch: "Extending PyTorch" (notes/extending) -------------------------------------------
extending = snippet("Extending PyTorch")
extending("""
import torch
from torch.autograd import Function
class LinearFunction(Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output
    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)
    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias
from torch.autograd import gradcheck
input = (torch.randn(20,20,dtype=torch.double,requires_grad=True), torch.randn(30,20,dtype=torch.double,requires_grad=True), None)
test = gradcheck(LinearFunction.apply, input, eps=1e-6, atol=1e-4)
print(test)
""")
extending("""
import torch
from torch.autograd import Function
class MulConstant(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant
    @staticmethod
    def setup_context(ctx, inputs, output):
        tensor, constant = inputs
        ctx.constant = constant
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None
x = torch.tensor([1., 2., 3.], requires_grad=True)
MulConstant.apply(x, 5.0).sum().backward()
print(x.grad)
""")
extending("""
import torch
from torch.autograd import Function
class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        dx = 3 * x ** 2
        result = x ** 3
        return result, dx
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)
    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result
def my_cube(x):
    result, dx = MyCube.apply(x)
    return result
x = torch.tensor([1., 2.], dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(my_cube, x))
print(torch.autograd.gradgradcheck(my_cube, x))
""")

# -- PyTorch: "Forward-mode Automatic Differentiation" -----------------------------------------
forward = snippet("Forward-mode Automatic Differentiation")
forward("""
import torch
import torch.autograd.forward_ad as fwAD
primal = torch.randn(10, 10)
tangent = torch.randn(10, 10)
def fn(x, y):
    return x ** 2 + y ** 2
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    assert fwAD.unpack_dual(dual_input).tangent is tangent
    dual_input_alt = fwAD.make_dual(primal, tangent.T)
    assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent
    plain_tensor = torch.randn(10, 10)
    dual_output = fn(dual_input, plain_tensor)
    jvp = fwAD.unpack_dual(dual_output).tangent
assert fwAD.unpack_dual(dual_output).tangent is None
print(jvp[:2, :3])
""")
forward("""
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn
model = nn.Linear(5, 5)
input = torch.randn(16, 5)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}
with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))
    out = model(input)
    jvp = fwAD.unpack_dual(out).tangent
print(jvp.detach()[:2])
""")
forward("""
import torch
import torch.autograd.forward_ad as fwAD
class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result
    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO
fn = Fn.apply
primal = torch.randn(10, 10, dtype=torch.double, requires_grad=True)
tangent = torch.randn(10, 10)
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn(dual_input)
    jvp = fwAD.unpack_dual(dual_output).tangent
print(torch.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True,
                         check_backward_ad=False, check_undefined_grad=False,
                         check_batched_grad=False))
""")

# -- PyTorch: "Autograd mechanics" and the grad-mode docs ----------------------------------------
mechanics = snippet("Autograd mechanics")
mechanics("""
import torch
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(x.equal(y.grad_fn._saved_self))
print(x is y.grad_fn._saved_self)
y = x.exp()
print(y.equal(y.grad_fn._saved_result))
print(y is y.grad_fn._saved_result)
""")
mechanics("""
import torch
def pack_hook(x):
    print("Packing", x)
    return x
def unpack_hook(x):
    print("Unpacking", x)
    return x
a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
""")
mechanics("""
import torch
x = torch.ones(1, 2, 3, requires_grad=True)
with torch.inference_mode():
    y = x * x
print(y.requires_grad)
@torch.inference_mode()
def func(x):
    return x * x
out = func(x)
print(out.requires_grad)
@torch.no_grad()
def doubler(x):
    return x * 2
print(doubler(x).requires_grad)
with torch.no_grad():
    a = torch.nn.Parameter(torch.rand(10))
print(a.requires_grad)
""")

# -- torch.optim documentation ---------------------------------------------------------------
optim_docs = snippet("torch.optim")
optim_docs("""
import torch
from torch import nn, optim
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
loss_fn = nn.MSELoss()
dataset = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(5)]
optimizer = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for input, target in dataset:
    optimizer.zero_grad()
    output = model(input)
    loss = loss_fn(output, target)
    loss.backward()
    optimizer.step()
    print(loss.item())
optimizer = optim.Adam([model[0].weight, model[0].bias], lr=0.0001)
print(optimizer)
""")
optim_docs("""
import torch
from torch import nn, optim
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Linear(3, 3)
        self.classifier = nn.Linear(3, 2)
    def forward(self, x):
        return self.classifier(self.base(x).relu())
model = Net()
optimizer = optim.SGD([
    {'params': model.base.parameters(), 'lr': 1e-2},
    {'params': model.classifier.parameters()}
], lr=1e-3, momentum=0.9)
X, y = torch.randn(6, 3), torch.tensor([0, 1, 1, 0, 1, 0])
for _ in range(3):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(X), y)
    loss.backward()
    optimizer.step()
    print(loss.item(), optimizer.param_groups[0]['lr'])
""")

# -- d2l.ai: "Automatic Differentiation" and "Linear Regression Implementation from Scratch" ---
d2l = snippet("d2l")
d2l("""
import torch
x = torch.arange(4.0)
print(x)
x.requires_grad_(True)
print(x.grad)
y = 2 * torch.dot(x, x)
print(y)
y.backward()
print(x.grad)
print(x.grad == 4 * x)
x.grad.zero_()
y = x.sum()
y.backward()
print(x.grad)
x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))
print(x.grad)
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print(x.grad == u)
""")
d2l("""
import torch
def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c
a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()
print(a.grad == d / a)
""")
d2l("""
import random
import torch
def synthetic_data(w, b, num_examples):
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))
true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 200)
def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
        yield features[batch_indices], labels[batch_indices]
w = torch.normal(0, 0.01, size=(2,1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
def linreg(X, w, b):
    return torch.matmul(X, w) + b
def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2
def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()
lr, num_epochs, net, loss = 0.03, 3, linreg, squared_loss
for epoch in range(num_epochs):
    for X, y in data_iter(10, features, labels):
        l = loss(net(X, w, b), y)
        l.sum().backward()
        sgd([w, b], lr, 10)
    with torch.no_grad():
        train_l = loss(net(features, w, b), labels)
        print(f'epoch {epoch + 1}, loss {float(train_l.mean()):f}')
print(f'error in estimating w: {true_w - w.reshape(true_w.shape)}')
print(f'error in estimating b: {true_b - b}')
""")

# -- micrograd's test_engine.py, its torch half ------------------------------------------------
micrograd = snippet("micrograd test_engine")
micrograd("""
import torch
x = torch.Tensor([-4.0]).double()
x.requires_grad = True
z = 2 * x + 2 + x
q = z.relu() + z * x
h = (z * z).relu()
y = h + q + q * x
y.backward()
xpt, ypt = x, y
print(ypt.data.item(), xpt.grad.item())
""")
micrograd("""
import torch
a = torch.Tensor([-4.0]).double()
b = torch.Tensor([2.0]).double()
a.requires_grad = True
b.requires_grad = True
c = a + b
d = a * b + b**3
c = c + c + 1
c = c + 1 + c + (-a)
d = d + d * 2 + (b + a).relu()
d = d + 3 * d + (b - a).relu()
e = c - d
f = e**2
g = f / 2.0
g = g + 10.0 / f
g.backward()
apt, bpt, gpt = a, b, g
print(gpt.data.item(), apt.grad.item(), bpt.grad.item())
""")

# -- the device boilerplate of CPU code, and a logistic regression as courses write it ------------
devices = snippet("Tensors (device boilerplate)")
devices("""
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
tensor = torch.ones(4, 4, device=device)
if torch.cuda.is_available():
    tensor = tensor.to("cuda")
print(f"Device tensor is stored on: {tensor.device}")
torch.set_default_device("cpu")
x = torch.arange(-8, 8, 0.1, requires_grad=True).to(device)
torch.relu(x).sum().backward()
print(x.grad[78:83], x[80].item() > 0)
print(x.detach().cpu().numpy()[:3])
g = torch.Generator().manual_seed(42)
print(torch.randn(2, 3, generator=g).shape, torch.randn((2, 3)).shape, torch.randn(size=(2, 3)).shape)
""")
logistic = snippet("Logistic regression")
logistic("""
import torch
import torch.nn as nn
X = torch.randn(40, 2)
y = (X[:, 0] + X[:, 1] > 0).float().unsqueeze(1)
model = nn.Sequential(nn.Linear(2, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for epoch in range(30):
    optimizer.zero_grad(set_to_none=True)
    loss = criterion(model(X), y)
    loss.backward()
    optimizer.step()
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1}: loss {loss.item():.4f}")
with torch.inference_mode():
    accuracy = ((model(X) > 0.5).float() == y).float().mean()
print(accuracy.item(), accuracy.is_inference())
""")

# -- PyTorch: the 60-minute blitz, "Neural Networks" (LeNet on one random 32x32 image) --------
lenet = snippet("Neural Networks (blitz)")
_LENET_TRAINING = """
net = Net()
print(net)
params = list(net.parameters())
print(len(params))
print(params[0].size())  # conv1's .weight
input = torch.randn(1, 1, 32, 32)
out = net(input)
print(out)
net.zero_grad()
out.backward(torch.randn(1, 10))
output = net(input)
target = torch.randn(10)  # a dummy target, for example
target = target.view(1, -1)  # make it the same shape as output
criterion = nn.MSELoss()
loss = criterion(output, target)
print(loss)
print(loss.grad_fn)  # MSELoss
print(loss.grad_fn.next_functions[0][0])  # Linear
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])  # ReLU
net.zero_grad()     # zeroes the gradient buffers of all parameters
print('conv1.bias.grad before backward')
print(net.conv1.bias.grad)
loss.backward()
print('conv1.bias.grad after backward')
print(net.conv1.bias.grad)
learning_rate = 0.01
for f in net.parameters():
    f.data.sub_(f.grad.data * learning_rate)
import torch.optim as optim
optimizer = optim.SGD(net.parameters(), lr=0.01)
optimizer.zero_grad()   # zero the gradient buffers
output = net(input)
loss = criterion(output, target)
loss.backward()
optimizer.step()    # Does the update
print(criterion(net(input), target))
"""
# the earlier edition: max_pool2d on a (2, 2) window, and a view to flatten
lenet("""
import torch
import torch.nn as nn
import torch.nn.functional as F
class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        # 1 input image channel, 6 output channels, 5x5 square convolution kernel
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        # an affine operation: y = Wx + b
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)
    def forward(self, x):
        # Max pooling over a (2, 2) window
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        # If the size is a square you can only specify a single number
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, self.num_flat_features(x))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x
    def num_flat_features(self, x):
        size = x.size()[1:]  # all dimensions except the batch dimension
        num_features = 1
        for s in size:
            num_features *= s
        return num_features
""" + _LENET_TRAINING)
# the current edition: named layers C1..F6, and torch.flatten
lenet("""
import torch
import torch.nn as nn
import torch.nn.functional as F
class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)  # 5*5 from image dimension
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)
    def forward(self, input):
        c1 = F.relu(self.conv1(input))
        s2 = F.max_pool2d(c1, (2, 2))
        c3 = F.relu(self.conv2(s2))
        s4 = F.max_pool2d(c3, 2)
        s4 = torch.flatten(s4, 1)
        f5 = F.relu(self.fc1(s4))
        f6 = F.relu(self.fc2(f5))
        output = self.fc3(f6)
        return output
""" + _LENET_TRAINING)

# -- PyTorch: "What is torch.nn really?" -------------------------------------------------------
# Its data is MNIST, downloaded; here a small stand-in of the same shapes (28x28 "images"
# as rows of 784 floats in [0, 1), and labels a fixed linear map picks), made by NumPy.
_MNIST_STAND_IN = """
import numpy as np
rng = np.random.default_rng(0)
x_train = rng.random((192, 784), dtype=np.float32)
x_valid = rng.random((96, 784), dtype=np.float32)
projection = rng.standard_normal((784, 10)).astype(np.float32)
y_train, y_valid = (x_train @ projection).argmax(1), (x_valid @ projection).argmax(1)
import torch
x_train, y_train, x_valid, y_valid = map(
    torch.tensor, (x_train, y_train, x_valid, y_valid)
)
n, c = x_train.shape
import math
bs = 64  # batch size
lr = 0.5  # learning rate
epochs = 2  # how many epochs to train for
"""
nn_really = snippet("What is torch.nn really?")
nn_really(_MNIST_STAND_IN + """
print(x_train, y_train)
print(x_train.shape)
print(y_train.min(), y_train.max())
weights = torch.randn(784, 10) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)
def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)
def model(xb):
    return log_softmax(xb @ weights + bias)
xb = x_train[0:bs]  # a mini-batch from x
preds = model(xb)  # predictions
print(preds[0], preds.shape)
def nll(input, target):
    return -input[range(target.shape[0]), target].mean()
loss_func = nll
yb = y_train[0:bs]
print(loss_func(preds, yb))
def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()
print(accuracy(preds, yb))
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
print(loss_func(model(xb), yb), accuracy(model(xb), yb))
""")
nn_really(_MNIST_STAND_IN + """
import torch.nn.functional as F
from torch import nn
loss_func = F.cross_entropy
xb, yb = x_train[0:bs], y_train[0:bs]
class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(784, 10) / math.sqrt(784))
        self.bias = nn.Parameter(torch.zeros(10))
    def forward(self, xb):
        return xb @ self.weights + self.bias
model = Mnist_Logistic()
print(loss_func(model(xb), yb))
def fit():
    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= p.grad * lr
                model.zero_grad()
fit()
print(loss_func(model(xb), yb))
class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)
    def forward(self, xb):
        return self.lin(xb)
model = Mnist_Logistic()
print(loss_func(model(xb), yb))
fit()
print(loss_func(model(xb), yb))
from torch import optim
def get_model():
    model = Mnist_Logistic()
    return model, optim.SGD(model.parameters(), lr=lr)
model, opt = get_model()
print(loss_func(model(xb), yb))
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
print(loss_func(model(xb), yb))
from torch.utils.data import TensorDataset
train_ds = TensorDataset(x_train, y_train)
model, opt = get_model()
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        xb, yb = train_ds[i * bs: i * bs + bs]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
print(loss_func(model(xb), yb))
from torch.utils.data import DataLoader
train_dl = DataLoader(train_ds, batch_size=bs)
model, opt = get_model()
for epoch in range(epochs):
    for xb, yb in train_dl:
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
print(loss_func(model(xb), yb))
train_dl = DataLoader(train_ds, batch_size=bs, shuffle=True)
valid_ds = TensorDataset(x_valid, y_valid)
valid_dl = DataLoader(valid_ds, batch_size=bs * 2)
model, opt = get_model()
for epoch in range(epochs):
    model.train()
    for xb, yb in train_dl:
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
    model.eval()
    with torch.no_grad():
        valid_loss = sum(loss_func(model(xb), yb) for xb, yb in valid_dl)
    print(epoch, valid_loss / len(valid_dl))
""")
_NN_REALLY_FIT = """
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset
loss_func = F.cross_entropy
train_ds = TensorDataset(x_train, y_train)
valid_ds = TensorDataset(x_valid, y_valid)
def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)
def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(
                *[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl]
            )
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        print(epoch, val_loss)
def get_data(train_ds, valid_ds, bs):
    return (
        DataLoader(train_ds, batch_size=bs, shuffle=True),
        DataLoader(valid_ds, batch_size=bs * 2),
    )
class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func
    def forward(self, x):
        return self.func(x)
"""
nn_really(_MNIST_STAND_IN + _NN_REALLY_FIT + """
class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)
    def forward(self, xb):
        return self.lin(xb)
def get_model():
    model = Mnist_Logistic()
    return model, optim.SGD(model.parameters(), lr=lr)
train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
model, opt = get_model()
fit(epochs, model, loss_func, opt, train_dl, valid_dl)
class Mnist_CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1)
    def forward(self, xb):
        xb = xb.view(-1, 1, 28, 28)
        xb = F.relu(self.conv1(xb))
        xb = F.relu(self.conv2(xb))
        xb = F.relu(self.conv3(xb))
        xb = F.avg_pool2d(xb, 4)
        return xb.view(-1, xb.size(1))
lr = 0.1
model = Mnist_CNN()
opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
fit(epochs, model, loss_func, opt, train_dl, valid_dl)
""")
nn_really(_MNIST_STAND_IN + _NN_REALLY_FIT + """
lr = 0.1
train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
def preprocess(x):
    return x.view(-1, 1, 28, 28)
model = nn.Sequential(
    Lambda(preprocess),
    nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AvgPool2d(4),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
fit(epochs, model, loss_func, opt, train_dl, valid_dl)
print(model)
""")
nn_really(_MNIST_STAND_IN + _NN_REALLY_FIT + """
lr = 0.1
def preprocess(x, y):
    return x.view(-1, 1, 28, 28), y
class WrappedDataLoader:
    def __init__(self, dl, func):
        self.dl = dl
        self.func = func
    def __len__(self):
        return len(self.dl)
    def __iter__(self):
        for b in self.dl:
            yield (self.func(*b))
train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
train_dl = WrappedDataLoader(train_dl, preprocess)
valid_dl = WrappedDataLoader(valid_dl, preprocess)
model = nn.Sequential(
    nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
fit(epochs, model, loss_func, opt, train_dl, valid_dl)
dev = torch.device(
    "cuda") if torch.cuda.is_available() else torch.device("cpu")
def preprocess(x, y):
    return x.view(-1, 1, 28, 28).to(dev), y.to(dev)
train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
train_dl = WrappedDataLoader(train_dl, preprocess)
valid_dl = WrappedDataLoader(valid_dl, preprocess)
model.to(dev)
opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
fit(epochs, model, loss_func, opt, train_dl, valid_dl)
""")

# -- d2l.ai: "Concise Implementation of Linear Regression" ------------------------------------
d2l_concise = snippet("d2l concise linear regression")
d2l_concise("""
import numpy as np
import torch
from torch.utils import data
def synthetic_data(w, b, num_examples):  # d2l.synthetic_data
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))
true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 300)
def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)
batch_size = 10
data_iter = load_array((features, labels), batch_size)
print(next(iter(data_iter)))
from torch import nn
net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
num_epochs = 3
for epoch in range(num_epochs):
    for X, y in data_iter:
        l = loss(net(X) ,y)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f'epoch {epoch + 1}, loss {l:f}')
w = net[0].weight.data
print('error in estimating w:', true_w - w.reshape(true_w.shape))
b = net[0].bias.data
print('error in estimating b:', true_b - b)
""")

# -- saving and loading a model's state (the "Saving and Loading Models" recipe, in memory) ------
saving = snippet("Saving and Loading Models")
saving("""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
class TheModelClass(nn.Module):
    def __init__(self):
        super(TheModelClass, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)
    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x
model = TheModelClass()
print("Model's state_dict:")
for param_tensor in model.state_dict():
    print(param_tensor, "\\t", model.state_dict()[param_tensor].size())
state = model.state_dict()
x = torch.randn(2, 3, 32, 32)
before = model(x)
model2 = TheModelClass()
print(torch.equal(model2(x), before))
print(model2.load_state_dict(state))
model2.eval()
print(torch.equal(model2(x), before))
state.pop("fc3.bias")
try:
    model2.load_state_dict(state)
except RuntimeError as e:
    print(e)
print(model2.load_state_dict(state, strict=False))
""")


# -- nn's building blocks as courses use them: d2l's lazy layers and parameter access (its
#    `type(module) == nn.Linear` read by the class's name: the test gives torch's run a Linear
#    of its own, which the lazy layer does not become), a
#    network of ModuleLists with batch norm trained by AdamW under a schedule, a padded
#    embedding, a policy gradient with a Categorical, a target network and a hook ----------
blocks = snippet("Building blocks in learners' code")
blocks("""
import torch
from torch import nn
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
print(net[0].weight)
X = torch.rand(size=(2, 4))
print(net(X).shape)
print(net)
print([(name, param.shape) for name, param in net[0].named_parameters()])
def init_normal(module):
    if type(module).__name__ == "Linear":
        nn.init.normal_(module.weight, mean=0, std=0.01)
        nn.init.zeros_(module.bias)
net.apply(init_normal)
print(net[0].weight.data[0], net[0].bias.data[0])
def init_constant(module):
    if type(module).__name__ == "Linear":
        nn.init.constant_(module.weight, 1)
        nn.init.zeros_(module.bias)
net.apply(init_constant)
print(net(X))
""")
blocks("""
import torch
from torch import nn
torch.manual_seed(0)
class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])])
        self.norms = nn.ModuleList([nn.BatchNorm1d(b) for b in sizes[1:-1]])
        self.act = nn.LeakyReLU(0.1)
    def forward(self, x):
        for layer, norm in zip(self.layers[:-1], self.norms):
            x = self.act(norm(layer(x)))
        return self.layers[-1](x)
model = MLP([3, 8, 8, 2])
print(model)
X = torch.randn(16, 3)
y = (X.sum(1) > 0).long()
opt = torch.optim.AdamW(model.parameters(), lr=0.01)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
for epoch in range(12):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(X), y)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    opt.step()
    sched.step()
    if epoch % 3 == 0:
        print(epoch, round(loss.item(), 4), round(norm.item(), 4), sched.get_last_lr())
model.eval()
print(model.norms[0].running_mean.shape, model.norms[0].num_batches_tracked, model(X[:2]).shape)
print(list(opt.state_dict()["state"][0].keys()), opt.state_dict()["param_groups"][0]["lr"])
""")
blocks("""
import torch
from torch import nn
class BagOfWords(nn.Module):
    def __init__(self, vocab, dim, classes):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim, padding_idx=0)
        self.norm = nn.LayerNorm(dim)
        self.out = nn.Linear(dim, classes)
    def forward(self, tokens):
        mask = (tokens != 0).float().unsqueeze(-1)
        summed = (self.embedding(tokens) * mask).sum(1) / mask.sum(1)
        return self.out(nn.functional.gelu(self.norm(summed)))
model = BagOfWords(20, 6, 3)
tokens = torch.tensor([[3, 7, 0, 0], [1, 2, 3, 4], [5, 5, 5, 0]])
labels = torch.tensor([0, 2, 1])
loss = nn.functional.cross_entropy(model(tokens), labels)
loss.backward()
print(round(loss.item(), 4))
print(model.embedding.weight.grad[0], model.embedding.weight.grad[5])
print(model.embedding)
""")
blocks("""
import copy
import torch
from torch import nn
from torch.distributions import Categorical
policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
target = copy.deepcopy(policy)
for p in target.parameters():
    p.requires_grad = False
features = {}
policy[1].register_forward_hook(lambda module, inputs, output: features.update(hidden=output.detach()))
states = torch.randn(5, 4)
actions = torch.tensor([0, 1, 1, 0, 1])
returns = torch.tensor([1.0, 0.5, -0.2, 2.0, 0.0])
dist = Categorical(logits=policy(states))
print(dist)
loss = -(dist.log_prob(actions) * returns).mean() - 0.01 * dist.entropy().mean()
optimizer = torch.optim.RMSprop(policy.parameters(), lr=0.01)
optimizer.zero_grad()
loss.backward()
optimizer.step()
print(round(loss.item(), 5), features["hidden"].shape)
print(torch.allclose(policy[0].bias, target[0].bias), target[0].bias.requires_grad)
print(round((policy(states) - target(states)).abs().max().item(), 5))
""")


# -- Learners' code with torch's other tensor operations (issue 48; usage/MISSING.md) ---------
# written in our own words after the patterns the usage corpus shows most: reductions with
# NumPy's spellings (d2l), a bigram model's sampling and one-hot inputs (makemore), saving a
# state_dict and a checkpoint (PyTorch's "Saving and Loading Models"), a causal mask and a
# layer norm by hand (GPT from scratch), and the picking functions of course exercises
reductions = snippet("d2l: reductions with NumPy's spellings")
reductions("""
import torch
A = torch.arange(20, dtype=torch.float32).reshape(5, 4)
print(A.sum(axis=0), A.sum(axis=[0, 1]))
print(A.mean(axis=0), A.sum(axis=1, keepdims=True))
print(A.cumsum(axis=0)[-1], torch.cumprod(A[1:3], dim=1))
print(A / A.sum(axis=1, keepdims=True))
print(torch.cat((A, A), axis=1).shape, torch.stack((A, A), axis=2).shape)
print(A.max(axis=1), A.argmax(axis=0))
print(A.std(), A.var(axis=0, unbiased=False), torch.std(A, dim=1, keepdim=True))
""")
bigram = snippet("makemore: sampling from bigram counts")
bigram("""
import torch
import torch.nn.functional as F
N = torch.zeros((4, 4), dtype=torch.int32)
for a, b in [(0, 1), (1, 2), (2, 3), (3, 0), (1, 2), (2, 3)]:
    N[a, b] += 1
P = (N + 1).float()
P /= P.sum(1, keepdims=True)
print(P)
g = torch.Generator().manual_seed(2147483647)
ix = torch.multinomial(P[1], num_samples=20, replacement=True, generator=g)
print(ix, ix.shape, ix.dtype)
xs, ys = torch.tensor([0, 1, 2, 1]), torch.tensor([1, 2, 3, 2])
xenc = F.one_hot(xs, num_classes=4).float()
print(xenc)
W = torch.randn((4, 4), requires_grad=True)
logits = xenc @ W
counts = logits.exp()
probs = counts / counts.sum(1, keepdims=True)
loss = -probs[torch.arange(4), ys].log().mean()
loss.backward()
print(loss.item() > 0, W.grad)
""")
saving = snippet("Saving and loading a model's state")
saving("""
import io
import torch
from torch import nn
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
buffer.seek(0)
fresh = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
print(fresh.load_state_dict(torch.load(buffer, map_location="cpu", weights_only=True)))
fresh.eval()
x = torch.ones(2, 3)
print(torch.equal(model(x), fresh(x)))
for name, t in fresh.state_dict().items():
    print(name, t.size())
checkpoint = {"epoch": 3, "model_state_dict": model.state_dict(), "loss": 0.25, "history": [1.0, 0.5]}
buffer = io.BytesIO()
torch.save(checkpoint, buffer)
buffer.seek(0)
loaded = torch.load(buffer, weights_only=True)
print(loaded["epoch"], loaded["loss"], loaded["history"], sorted(loaded["model_state_dict"]))
""")
gpt = snippet("GPT from scratch: a causal mask and a layer norm by hand")
gpt("""
import torch
T = 4
tril = torch.tril(torch.ones(T, T))
wei = torch.zeros((T, T)).masked_fill(tril == 0, float('-inf'))
wei = torch.softmax(wei, dim=-1)
print(wei)
x = torch.arange(8.).reshape(2, 4).requires_grad_()
mean, std = x.mean(-1, keepdim=True), x.std(-1, keepdim=True)
y = (x - mean) / (std + 1e-5)
print(y)
(y * torch.tensor([1., 2., 3., 4.])).sum().backward()
print(x.grad)
print(x.var(dim=1, unbiased=False), torch.triu(torch.ones(3, 3), diagonal=1))
""")
picking = snippet("Course exercises: picking and counting")
picking("""
import torch
scores = torch.tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2]])
values, indices = scores.topk(2, dim=1)
print(values, indices)
print(scores.argsort(dim=1, descending=True))
labels = torch.tensor([2, 0, 2, 1, 2])
print(torch.unique(labels, return_counts=True))
print((labels == 2).nonzero(as_tuple=True), labels.nonzero().shape)
target = torch.zeros(2, 3).scatter_(1, torch.tensor([[1], [0]]), 1.0)
print(target)
print(torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 3, 1)).squeeze(-1))
print(torch.det(torch.tensor([[2., 1.], [1., 3.]])), torch.dist(scores[0], scores[1]))
print(torch.pi, torch.isclose(torch.tensor(torch.pi).cos(), torch.tensor(-1.)))
print(torch.arange(10) % 3, torch.tensor([8., 100.]).log2(), torch.tensor([8., 100.]).log10())
print(torch.meshgrid(torch.arange(2), torch.arange(3), indexing="ij")[1])
print(scores.masked_select(scores > 0.25), scores.new_zeros(2), scores.type_as(labels))
""")


# -- sequences, upsampling and attention (issue 48): learners' recurrent layers, packed
#    batches, transposed convolutions, U-Net's upsampling, spatial transformers, attention --
sequences = snippet("Sequence models, upsampling and attention")
sequences("""
import torch
import torch.nn as nn
torch.manual_seed(1)
lstm = nn.LSTM(3, 3)                       # the LSTM tutorial: one step at a time, then at once
inputs = [torch.randn(1, 3) for _ in range(5)]
hidden = (torch.randn(1, 1, 3), torch.randn(1, 1, 3))
for i in inputs:
    out, hidden = lstm(i.view(1, 1, -1), hidden)
inputs = torch.cat(inputs).view(len(inputs), 1, -1)
hidden = (torch.randn(1, 1, 3), torch.randn(1, 1, 3))
out, hidden = lstm(inputs, hidden)
print(out.detach())          # (float32 on a CPU: torch's node is oneDNN's fused one, its name differs)
print([h.detach() for h in hidden])
""")
sequences("""
import torch
import torch.nn as nn
class CharRNN(nn.Module):                   # a name classifier, letters one-hot
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.rnn = nn.RNN(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)
    def forward(self, line_tensor):
        rnn_out, hidden = self.rnn(line_tensor)
        return self.softmax(self.h2o(hidden[0]))
letters = "abcdefghijklmnopqrstuvwxyz"
def line_to_tensor(line):
    tensor = torch.zeros(len(line), 1, len(letters))
    for li, letter in enumerate(line):
        tensor[li][0][letters.find(letter)] = 1
    return tensor
model = CharRNN(len(letters), 8, 3)
output = model(line_to_tensor("albert"))
print(output.shape, output.argmax(1).item())
loss = nn.NLLLoss()(output, torch.tensor([2]))
loss.backward()
print(loss, model.rnn.weight_hh_l0.grad.norm())
""")
sequences("""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
seqs = [torch.randn(n, 4) for n in (2, 5, 3)]      # sentences of different lengths
lengths = torch.tensor([len(s) for s in seqs])
padded = pad_sequence(seqs, batch_first=True)
print(padded.shape)
gru = nn.GRU(4, 6, num_layers=2, batch_first=True, bidirectional=True)
packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
out, h_n = gru(packed)
out, out_lengths = pad_packed_sequence(out, batch_first=True)
print(out.shape, out_lengths, h_n.shape)
print(out[0, 2:].abs().sum())            # the first sentence ended: padding
final = torch.cat([h_n[-2], h_n[-1]], dim=1)
print(final.shape, final.sum())
""")
sequences("""
import torch
import torch.nn as nn
import torch.nn.functional as F
netG = nn.Sequential(                      # a DCGAN generator, small
    nn.ConvTranspose2d(8, 4, 4, 1, 0, bias=False), nn.ReLU(True),
    nn.ConvTranspose2d(4, 2, 4, 2, 1, bias=False), nn.ReLU(True),
    nn.ConvTranspose2d(2, 1, 4, 2, 1, bias=False), nn.Tanh())
noise = torch.randn(2, 8, 1, 1)
fake = netG(noise)
print(fake.shape, fake.grad_fn)
up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)   # U-Net's up block
x1, x2 = torch.randn(1, 2, 3, 3), torch.randn(1, 2, 7, 7)
x1 = up(x1)
diffY, diffX = x2.size()[2] - x1.size()[2], x2.size()[3] - x1.size()[3]
x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2])
x = torch.cat([x2, x1], dim=1)
print(x.shape, x1.grad_fn)
print(nn.Conv1d(2, 3, 3, padding=1)(torch.randn(1, 2, 6)).shape)
""")
sequences("""
import torch
import torch.nn.functional as F
theta = torch.tensor([[[0.8, -0.2, 0.1], [0.3, 0.9, -0.1]]], requires_grad=True)
x = torch.arange(16.).view(1, 1, 4, 4)             # a spatial transformer's sampling
grid = F.affine_grid(theta, x.size(), align_corners=False)
y = F.grid_sample(x, grid, align_corners=False)
print(y)
y.sum().backward()
print(theta.grad)
q, k, v = torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 8)
print(F.scaled_dot_product_attention(q, k, v).shape)
mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
out, weights = mha(q, k, v)
print(out.shape, weights.shape, weights.sum(-1))
""")

# -- Courses' setup code: seeds, GPU switches, a model wrapped for several GPUs (the
#    usage table's hardware names: cs231n's legacy dtypes, DataParallel in d2l-style
#    training loops), run on a machine without a GPU ----------------------------------------
setup = snippet("Course setup code")
setup("""
import torch
import torch.nn as nn
torch.manual_seed(0)
torch.cuda.manual_seed_all(0)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
use_cuda = torch.cuda.is_available()
dtype = torch.cuda.FloatTensor if use_cuda else torch.FloatTensor
gpu_dtype = torch.cuda.FloatTensor                # named in setup, used only with a GPU
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
if torch.cuda.device_count() > 1 or not use_cuda:
    model = nn.DataParallel(model)
print(model)
print(list(model.state_dict().keys()), model.device_ids)
x = torch.ones(5, 3).type(dtype)
out = model(x)
out.sum().backward()
print(out.shape, out.grad_fn, isinstance(x, gpu_dtype), x.type())
print(model.module[0].weight.grad.shape, out.sum())
""")
