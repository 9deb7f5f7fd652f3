"""About: the three job modes, the scheduling problem as an MDP, the speedup models, the
baselines, references."""

from __future__ import annotations

import streamlit as st

from engine.env import spec
from engine.policies import ELASTIC_POLICIES, POLICIES
from engine.simulator.elastic import RESTART_DELAY
from engine.speedup.table import STRONG, scaling_table, speedup_table
from lab import state, ui
from lab.figures import job_modes_sketch, speedup_figure

SCALING_EXAMPLE = ("cifar10", 2048)
"""The job About uses to show strong against weak scaling (the Pollux workloads' batch)."""

st.title("About the lab")

st.header("Rigid, moldable and malleable jobs")
st.markdown(
    f"""
A **rigid** job runs on exactly the GPUs its user asked for, from start to end: what Slurm
and Kubernetes assume. A **moldable** job can run on any GPU count in its range, but the
scheduler picks the count once, when the job starts, and the job keeps it. A **malleable**
job can also be resized while it runs: grown when GPUs free up, shrunk when others arrive,
each change costing a restart ({RESTART_DELAY:.0f} s here: the job saves a checkpoint and
restarts on its new GPUs). A job of any kind may also be paused (preempted) and resumed
later, as Tiresias does with rigid jobs.
"""
)
ui.chart(job_modes_sketch(), key="about_modes")
st.caption("The same job three ways on a 4-GPU node, next to another job (grey): rigid "
           "keeps its 2 requested GPUs; moldable starts on all 4 once they are free and "
           "keeps them; malleable starts on 2 and grows to 4 after a restart (dark).")
st.markdown(
    """
`drl` is a **moldable** policy: each action starts a waiting job on a GPU count, and it
never touches a running job. A malleable DRL scheduler would need an action space over the
running jobs too (grow, shrink or pause each one) and the restart cost in its reward, so
that it resizes only when that pays; that is a later step. The **Job modes** tab of Compare
runs the same workloads in all three modes, each with its best policy.
"""
)

st.header("Scheduling moldable jobs as a Markov decision process")
st.markdown(
    f"""
A **moldable** job can run on any GPU count between its minimum and maximum, but the
count is fixed when it starts. At every arrival or completion the scheduler decides
*which* waiting job starts next and *on how many GPUs*.

- **State** — the cluster (free GPUs per node, running jobs and when GPUs free up) and
  a window of the {spec.WINDOW} waiting jobs with the shortest run-time estimates, each
  described by its size, wait and speedup at {spec.LEVELS} GPU-count levels
  (1, 2, 4, …, 256). Every feature is normalised, so one policy works on 8 to 256 GPUs.
- **Action** — one of {spec.N_ACTIONS - 1} *(job, GPU level)* starts, or *wait* until the
  next event. Several jobs may start at one instant, one action each (as in DeepRM);
  infeasible actions are masked out.
- **Reward** — minus the number of jobs in the system times the time elapsed, scaled by
  the jobs' no-contention run time. The return is exactly minus the average JCT over
  its lower bound, so maximising reward minimises average job completion time.

The `drl` policy is a neural network trained on this MDP: first it imitates heuristic
teachers (shortest job first, each job on the GPU count that maximises GPUs x
efficiency^s): at eight points along each training workload, every teacher *s* is scored
by how much it would add to average JCT if it scheduled the rest from there, and the
network learns the action with the least regret on average over states that look alike
(not the teacher most often best, which on a small busy cluster is a wide one that loses
badly when it is wrong); then PPO fine-tunes it.

**Why one policy holds on every cluster.** It sees only ratios: free GPUs as a fraction
of the cluster, the queue over the cluster's size, run times over the window's mean,
each job's speedup and efficiency at each GPU count on the placement it would get now,
and the cluster's size and GPUs per node as numbers. Nothing in it is tied to one cluster
or one load, so the same network runs on one 8-GPU node and on 256 GPUs. It trained on
workloads as varied as where it is used (one node to 32 x 8 GPUs, offered load 0.3 to 5,
Poisson and bursty arrivals, users who ask for one GPU or any count, DL jobs and
Amdahl-law trace jobs, run times of a minute to days; a quarter of its workloads shaped
like an imported trace: all Amdahl, heavy-tailed, bursty and busy), and because the best teacher
differs between them (run jobs wide on a quiet cluster, lean on a small or overloaded
one), it has to learn from what it sees which one a moment calls for. It never trained on
a trace or on the seeds it is evaluated on (`python -m engine evaluate`).
"""
)

st.header("How jobs speed up")
st.markdown(
    "Six measured DL jobs and three analytic laws. A measured job trains at a fixed "
    "**global batch** (the CSV's `batch_size`, or the model's default): its speed on a "
    "placement is the step time measured by Pollux's authors on real GPUs at the local "
    "batch `batch_size / GPUs`, so both its curve and the most GPUs it can use depend on "
    "its batch. Crossing nodes costs speed."
)
cluster = state.cluster()
metric = st.radio("show", ("speedup", "efficiency"), horizontal=True, key="about_metric")
table = speedup_table(max_gpus=min(cluster.total_gpus, 256), gpus_per_node=cluster.gpus_per_node)
ui.chart(speedup_figure(table, metric), key="about_speedup")

st.subheader("Why a fixed-batch job stops speeding up")
scaling = scaling_table(*SCALING_EXAMPLE, max_gpus=min(cluster.total_gpus, 256),
                        gpus_per_node=cluster.gpus_per_node)
strong = scaling[scaling["model"] == STRONG].set_index("gpus")["speedup"]
st.markdown(
    f"""
Give a job twice the GPUs and, with its global batch fixed, each GPU computes half as
many samples per step while the gradients still have to be exchanged after every step:
computing shrinks, synchronising does not, and beyond some size the job gets slower
(**strong scaling**). Measured at a *fixed local batch* instead (every GPU keeps its
samples and the global batch grows with the GPUs, **weak scaling**) the same job looks
almost linear, but a job that keeps its batch never runs that way. The chart shows
`{SCALING_EXAMPLE[0]}` at batch {SCALING_EXAMPLE[1]:,} on {cluster}: at its fastest on
{strong.idxmax()} GPUs ({strong.max():.1f}x), {strong.iat[-1]:.1f}x on {strong.index[-1]}.
"""
)
name, batch = SCALING_EXAMPLE
ui.chart(speedup_figure(scaling, title=f"{name}, batch {batch:,}: strong vs weak scaling"),
         key="about_scaling")

st.header("The learned scheduler")
with st.expander(f"{POLICIES['drl'].title} (`drl`)"):
    st.markdown(POLICIES["drl"].about)

st.header("Baselines")
for name, entry in {**POLICIES, **ELASTIC_POLICIES}.items():
    if name != "drl":
        with st.expander(f"{entry.title} (`{name}`)"):
            st.markdown(entry.about)

st.header("References")
st.markdown(
    """
1. H. Mao, M. Alizadeh, I. Menache, S. Kandula. *Resource Management with Deep
   Reinforcement Learning* (DeepRM). HotNets 2016.
2. B. Hindman et al. *Mesos: A Platform for Fine-Grained Resource Sharing in the Data
   Center.* NSDI 2011.
3. D. L. Eager, J. Zahorjan, E. D. Lazowska. *Speedup Versus Efficiency in Parallel
   Systems.* IEEE Transactions on Computers, 1989.
4. J. Schulman, F. Wolski, P. Dhariwal, A. Radford, O. Klimov. *Proximal Policy
   Optimization Algorithms.* 2017.
5. Y. Peng, Y. Bao, Y. Chen, C. Wu, C. Guo. *Optimus: An Efficient Dynamic Resource
   Scheduler for Deep Learning Clusters.* EuroSys 2018.
6. A. Qiao et al. *Pollux: Co-adaptive Cluster Scheduling for Goodput-Optimized Deep
   Learning.* OSDI 2021.
7. C. Hwang, T. Kim, S. Kim, J. Shin, K. Park. *Elastic Resource Sharing for
   Distributed Deep Learning* (AFS). NSDI 2021.
8. A. B. Downey. *A Model for Speedup of Parallel Programs.* UC Berkeley, 1997.
9. T. Anthony, Z. Tian, D. Barber. *Thinking Fast and Slow with Deep Learning and Tree
   Search* (expert iteration). NeurIPS 2017.
"""
)
